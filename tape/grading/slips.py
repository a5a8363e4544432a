"""Name the algebra slip between two lines of a derivation (SPEC section 12).

A line that should only rewrite the line before (no derivative taken on it) and is not equal
to it is compared with the line before *with one classic slip made in it*: a sign lost in
distributing a minus over a sum, one term of a numerator divided by the denominator and the
others not, a term cancelled from the top and the bottom of a fraction, x^a·x^b taken as
x^(ab), (x^a)^b as x^(a+b), x^a/x^b as x^(a/b), (a + b)^n as a^n + b^n, a negative exponent
moved without its sign, a term dropped. The first slip whose line equals the student's in high
precision at the counterexample and at points where both are defined is the one named; with
none, the constant-factor / sign / extra-term reading of ``diagnosis.scaled_or_shifted``;
else None, never a guess.
"""
from __future__ import annotations

from typing import Iterator, Optional, Sequence

from ..expr import tree as E
from ..expr.printer import read_as

_ADD = {"+": "-", "-": "+"}


def name_slip(before, after, variables: list[str], points: Sequence[tuple]) -> Optional[dict]:
    """``{"kind", "detail"}`` for the slip that turns the tree ``before`` into ``after``, or
    None. ``points``: float tuples in ``variables`` order, the first the counterexample."""
    from ..expr import highprec as H

    at = [H.at(p) for p in points]
    answer = H.compile_tree(after, variables)
    wanted = [(p, H.value_at(answer, p)) for p in at]
    wanted = [(p, a) for p, a in wanted if a is not None]
    if not wanted:
        return None

    def matches(tree) -> bool:
        try:
            fn = H.compile_tree(tree, variables)
        except Exception:  # noqa: BLE001  (a variant that cannot be built is no match)
            return False
        for p, a in wanted:
            v = H.value_at(fn, p)
            if v is None or H.differ(v, a):
                return False
        return True

    for kind, detail, variant in _variants(before):
        if matches(variant):
            return {"kind": kind, "detail": detail}
    from .diagnosis import scaled_or_shifted

    fn = H.compile_tree(before, variables)
    pairs = [(H.value_at(fn, p), a) for p, a in wanted]
    found = scaled_or_shifted([(d, a) for d, a in pairs if d is not None], read_as(before))
    if found is None:
        return None
    # the diagnosis speaks of "the derivative": here it is the line before
    detail = found["detail"].replace("the derivative", "the line before").replace(
        "the answer", "this line")
    return {"kind": found["kind"], "detail": detail}


def _text(node) -> str:
    return read_as(node)


def _replaced(tree, target, new):
    """``tree`` with the node ``target`` (by identity) replaced by ``new``."""
    def visit(node, kids):
        if node is target:
            return new
        return E.rebuild(node, kids)

    # fold rebuilds bottom-up; identity of the original nodes is what ``visit`` sees
    return E.fold(tree, visit)


def _terms(node, sign: int = 1) -> list[tuple[int, object]]:
    """The signed terms of a sum."""
    if isinstance(node, E.Binary) and node.op in _ADD:
        right = -sign if node.op == "-" else sign
        return _terms(node.left, sign) + _terms(node.right, right)
    if isinstance(node, E.Unary) and node.op == "-":
        return [(-s, t) for s, t in _terms(node.operand, 1)] if sign > 0 else \
            _terms(node.operand, 1)
    return [(sign, node)]


def _sum(terms: list[tuple[int, object]]):
    out = None
    for sign, t in terms:
        if out is None:
            out = t if sign > 0 else E.Unary("-", t)
        else:
            out = E.Binary("+" if sign > 0 else "-", out, t)
    return out if out is not None else E.Number(0.0)


def _factors(node) -> list:
    if isinstance(node, E.Binary) and node.op == "*":
        return _factors(node.left) + _factors(node.right)
    return [node]


def _product(factors: list):
    out = factors[0]
    for f in factors[1:]:
        out = E.Binary("*", out, f)
    return out


def _base_power(node):
    if isinstance(node, E.Binary) and node.op == "**":
        return node.left, node.right
    if isinstance(node, E.Call) and node.name == "sqrt":
        return node.args[0], E.Number(0.5)
    return node, E.Number(1.0)


def _negated(node) -> bool:
    """Is ``node`` a minus sign or a negative number factor?"""
    if isinstance(node, E.Unary) and node.op == "-":
        return True
    return isinstance(node, E.Number) and node.value < 0


def _variants(tree) -> Iterator[tuple[str, str, object]]:
    """``(kind, detail, tree with the slip)`` for every slip at every place of ``tree``."""
    nodes = [n for n, _ in E.postorder(tree)]
    for node in nodes:
        yield from _sign_slips(tree, node)
    for node in nodes:
        yield from _cancellations(tree, node)
    for node in nodes:
        yield from _exponent_slips(tree, node)
    # products multiplied out first: x^4·(4x^2 + x) to 4x^8 + x^5 is a slip made while
    # distributing
    spread = _distributed(tree)
    if spread != tree:
        for node in [n for n, _ in E.postorder(spread)]:
            yield from _exponent_slips(spread, node)
    for node in nodes:
        yield from _term_signs(tree, node)
    terms = _terms(tree)
    if len(terms) > 1:
        for i, (_, t) in enumerate(terms):
            yield ("missing term", f"the term {_text(t)} of the line before was dropped",
                   _sum(terms[:i] + terms[i + 1:]))


def _sign_slips(tree, node) -> Iterator[tuple[str, str, object]]:
    # a - (b + c) written a - b + c: the minus reached only the first term
    if isinstance(node, E.Binary) and node.op == "-":
        inner = node.right
        factors = _factors(inner)
        for k, f in enumerate(factors):
            if isinstance(f, E.Binary) and f.op in _ADD:
                flipped = E.Binary(_ADD[f.op], f.left, f.right)
                new = _product(factors[:k] + [flipped] + factors[k + 1:])
                yield ("sign", f"a sign was lost in distributing the minus over "
                               f"{_text(inner)}: -({_text(f)}) changes the sign of "
                               f"{_text(f.right)} too",
                       _replaced(tree, node, E.Binary("-", node.left, new)))
    # -(b + c), or -k(b + c), multiplied out as -b + c
    if isinstance(node, E.Unary) and node.op == "-" and isinstance(node.operand, E.Binary) \
            and node.operand.op in _ADD:
        f = node.operand
        yield ("sign", f"a sign was lost in distributing the minus over {_text(f)}: "
                       f"-({_text(f)}) changes the sign of {_text(f.right)} too",
               _replaced(tree, f, E.Binary(_ADD[f.op], f.left, f.right)))
    if isinstance(node, E.Binary) and node.op == "*":
        factors = _factors(node)
        if any(_negated(f) for f in factors):
            for k, f in enumerate(factors):
                if isinstance(f, E.Binary) and f.op in _ADD:
                    flipped = E.Binary(_ADD[f.op], f.left, f.right)
                    yield ("sign", f"a sign was lost in distributing the negative factor over "
                                   f"{_text(f)}: the sign of {_text(f.right)} changes too",
                           _replaced(tree, node, _product(factors[:k] + [flipped] +
                                                          factors[k + 1:])))


def _term_signs(tree, node) -> Iterator[tuple[str, str, object]]:
    """The sign of one term of a sum changed (a minus dropped or added)."""
    if isinstance(node, E.Binary) and node.op in _ADD:
        flipped = E.Binary(_ADD[node.op], node.left, node.right)
        yield ("sign", f"the sign of the term {_text(node.right)} changed: {_text(node)} became "
                       f"{_text(flipped)}", _replaced(tree, node, flipped))
    if isinstance(node, E.Unary) and node.op == "-":
        yield ("sign", f"a minus sign was lost: {_text(node)} became {_text(node.operand)}",
               _replaced(tree, node, node.operand))


def _distributed(tree):
    """``tree`` with every product of a sum multiplied out, one level at a time."""
    def visit(node, kids):
        node = E.rebuild(node, kids)
        if isinstance(node, E.Binary) and node.op == "*":
            for sums, other, left in ((node.right, node.left, False),
                                      (node.left, node.right, True)):
                terms = _terms(sums)
                if len(terms) > 1:
                    return _sum([(sign, E.Binary("*", t, other) if left else
                                  E.Binary("*", other, t)) for sign, t in terms])
        return node

    return E.fold(tree, visit)


def _cancellations(tree, node) -> Iterator[tuple[str, str, object]]:
    if not (isinstance(node, E.Binary) and node.op == "/"):
        return
    top, bottom = node.left, node.right
    terms = _terms(top)
    if len(terms) > 1:
        # (a + b)/c taken as a/c + b: only one term divided
        for i, (sign, t) in enumerate(terms):
            rest = terms[:i] + terms[i + 1:]
            new = _sum([(sign, E.Binary("/", t, bottom))] + rest)
            yield ("cancellation", f"a wrong cancellation: only {_text(t)} of the numerator "
                                   f"{_text(top)} was divided by {_text(bottom)}",
                   _replaced(tree, node, new))
        # a term of the numerator cancelled against the denominator (a + b)/a = b
        for i, (sign, t) in enumerate(terms):
            if t == bottom:
                rest = terms[:i] + terms[i + 1:]
                yield ("cancellation", f"a wrong cancellation: {_text(t)} is a term of the "
                                       f"numerator, not a factor, and cannot be cancelled with "
                                       f"the denominator",
                       _replaced(tree, node, _sum(rest)))
    below = _terms(bottom)
    if len(terms) > 1 and len(below) > 1:
        for i, (s1, t) in enumerate(terms):
            for j, (s2, u) in enumerate(below):
                if t == u and s1 == s2:
                    new = E.Binary("/", _sum(terms[:i] + terms[i + 1:]),
                                   _sum(below[:j] + below[j + 1:]))
                    yield ("cancellation", f"a wrong cancellation: the term {_text(t)} was "
                                           f"cancelled from the top and the bottom of a "
                                           f"fraction, which only a common factor may be",
                           _replaced(tree, node, new))
    # a factor of the numerator cancelled against a term of the denominator
    if len(below) > 1:
        factors = _factors(top)
        for k, f in enumerate(factors):
            for j, (s2, u) in enumerate(below):
                if f == u and E.free_variables(f):
                    rest = factors[:k] + factors[k + 1:]
                    new = E.Binary("/", _product(rest) if rest else E.Number(1.0),
                                   _sum(below[:j] + [(s2, E.Number(1.0))] + below[j + 1:]))
                    yield ("cancellation", f"a wrong cancellation: {_text(f)} was cancelled "
                                           f"against a term of the denominator "
                                           f"{_text(bottom)}, which only a common factor may be",
                           _replaced(tree, node, new))


def _exponent_slips(tree, node) -> Iterator[tuple[str, str, object]]:
    if isinstance(node, E.Binary) and node.op == "*":
        factors = _factors(node)
        for i in range(len(factors)):
            for j in range(i + 1, len(factors)):
                b1, p1 = _base_power(factors[i])
                b2, p2 = _base_power(factors[j])
                if b1 == b2 and E.free_variables(b1):
                    rest = [f for k, f in enumerate(factors) if k not in (i, j)]
                    wrong = E.Binary("**", b1, E.Binary("*", p1, p2))
                    yield ("exponent rule", f"an exponent rule: {_text(factors[i])}·"
                                            f"{_text(factors[j])} is {_text(b1)} to the sum of "
                                            f"the exponents, not their product",
                           _replaced(tree, node, _product(rest + [wrong])))
    if isinstance(node, E.Binary) and node.op == "**":
        base, power = node.left, node.right
        if isinstance(base, E.Binary) and base.op == "**":
            wrong = E.Binary("**", base.left, E.Binary("+", base.right, power))
            yield ("exponent rule", f"an exponent rule: ({_text(base)})^{_text(power)} "
                                    f"multiplies the exponents, it does not add them",
                   _replaced(tree, node, wrong))
        if isinstance(base, E.Binary) and base.op in _ADD and \
                isinstance(power, E.Number) and power.value == int(power.value) > 1:
            wrong = E.Binary(base.op, E.Binary("**", base.left, power),
                             E.Binary("**", base.right, power))
            yield ("exponent rule", f"an exponent rule: ({_text(base)})^{_text(power)} is not "
                                    f"{_text(wrong)}; a power of a sum is not the sum of the "
                                    f"powers", _replaced(tree, node, wrong))
        if isinstance(base, E.Binary) and base.op == "*":
            for keep, other in ((base.left, base.right), (base.right, base.left)):
                wrong = E.Binary("*", keep, E.Binary("**", other, power))
                yield ("exponent rule", f"an exponent rule: in ({_text(base)})^{_text(power)} "
                                        f"the power applies to every factor, {_text(keep)} "
                                        f"too", _replaced(tree, node, wrong))
        negative = isinstance(power, E.Unary) and power.op == "-" or \
            isinstance(power, E.Number) and power.value < 0
        if negative:
            flipped = power.operand if isinstance(power, E.Unary) else E.Number(-power.value)
            yield ("exponent rule", f"an exponent rule: {_text(node)} is 1/{_text(base)}^"
                                    f"{_text(flipped)}, the sign of the exponent was lost",
                   _replaced(tree, node, E.Binary("**", base, flipped)))
    if isinstance(node, E.Binary) and node.op == "/":
        b1, p1 = _base_power(node.left)
        b2, p2 = _base_power(node.right)
        if b1 == b2 and E.free_variables(b1):
            yield ("exponent rule", f"an exponent rule: {_text(node)} subtracts the exponents, "
                                    f"it does not divide them",
                   _replaced(tree, node, E.Binary("**", b1, E.Binary("/", p1, p2))))
            yield ("exponent rule", f"an exponent rule: {_text(node)} is {_text(b1)}^"
                                    f"({_text(p1)} - {_text(p2)}), the exponents subtracted the "
                                    f"wrong way round",
                   _replaced(tree, node, E.Binary("**", b1, E.Binary("-", p2, p1))))
        if isinstance(node.left, E.Number) and node.left.value == 1.0 and \
                isinstance(node.right, E.Binary) and node.right.op == "**":
            base, power = node.right.left, node.right.right
            yield ("exponent rule", f"an exponent rule: {_text(node)} is {_text(base)}^"
                                    f"(-{_text(power)}); the minus of the exponent was lost",
                   _replaced(tree, node, node.right))
