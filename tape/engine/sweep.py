"""The backward sweep: cotangents pushed from the targets back through a tape's nodes.

``GradientTape._sweep`` decides what is relevant and calls one of the two sweeps here:
``sweep_raw`` (first order, nothing records the sweep: raw NumPy cotangents and the ops' fast
rules) or ``sweep_tensors`` (tensor rules, recorded by whatever tapes and accumulators are
active, so the result can be differentiated again). Both walk the nodes once, last first, and
never recurse. ``sweep_raw`` also takes the tape's scalar-lane entries (lane.py) as they are.
"""
from __future__ import annotations

import numpy as np

from .inplace import MIN_SIZE as _BIG, in_place, is_new, tracked
from .lane import as_node
from .registry import gradient_rule
from .structural import mark
from .tensor import Tensor, _wrap

_ONE_INPUT = (True,)
_F64 = np.float64
_ARRAY = np.ndarray


def depending_on(sources, nodes) -> dict:
    """The sources and every recorded output computed from one of them (as dict keys)."""
    relevant = dict.fromkeys(sources)
    for node in nodes:
        if type(node) is tuple:         # a lane entry (op, a, b, out)
            if node[1] in relevant or node[2] in relevant:
                relevant[node[3]] = None
            continue
        for i in node.inputs:
            if i in relevant:
                for o in node.outputs:
                    relevant[o] = None
                break
    return relevant


def sweep_raw(nodes, grads, wanted, relevant, free):
    """The first-order sweep on raw NumPy cotangents (``fast`` rules; tensor rules otherwise).

    This loop is most of the time of a small gradient, so it is written flat: lane entries with
    a float64 cotangent take their scalar rule, one- and two-input nodes with a fast rule take
    the short way, everything else goes through ``_general_rule``.
    ``free``: the sweep owns ``nodes`` and ``relevant`` and drops each output as its node is
    done (no earlier node can use it), so intermediate arrays die during the sweep.
    """
    pop, get = grads.pop, grads.get
    owned = {}          # tensor -> id of its cotangent array when only this sweep holds it
    forget = relevant.pop if free else _keep
    for node in _backwards(nodes, free):
        if type(node) is tuple:         # a lane entry (op, a, b, out)
            lane = True
            out = node[3]
        else:
            lane = False
            outs = node.outputs
            out = outs[0] if len(outs) == 1 else None
        if out is not None:
            g = pop(out, None)
            if g is None:
                if not grads:
                    break
                continue
            if out in wanted:
                grads[out] = g          # a source keeps its cotangent (and passes it on)
            elif not lane:              # (a lane's scalar: forgetting it frees nothing)
                forget(out, None)
        else:
            g = _multi_output_grads(grads, outs, wanted, True)
            if g is None:
                continue
        if lane:
            op, a, b, out = node
            need_a = a in relevant
            need_b = b in relevant
            scalar = op.scalar          # (None if the op's gradient was overridden since)
            got = scalar(g, a._value, b._value, out._value, need_a, need_b) \
                if scalar is not None and type(g) is _F64 else None
            if got is None:             # a marked or batched cotangent, or what the rule leaves
                node = as_node(node)
                node.needs_grad = (need_a, need_b)
                rule = op.fast
                got = rule(node, g) if rule is not None else _general_rule(node, g, True)
        else:
            inputs = node.inputs
            rule = node.op.fast if out is not None else None
            if type(g) is _ARRAY and g.size >= _BIG and tracked(rule):
                _tracked_step(node, inputs, rule, g, out, wanted, grads, relevant, owned)
                # (what earlier steps left in these would keep their arrays alive meanwhile)
                a = b = ig = got = ga = gb = prev = None
                continue
            if len(inputs) == 1:
                node.needs_grad = _ONE_INPUT
                if rule is not None:
                    ig = rule(node, g)
                else:
                    got = _general_rule(node, g, True)
                    ig = got[0] if got else None
                if ig is not None:
                    a = inputs[0]
                    prev = get(a)
                    grads[a] = ig if prev is None else \
                        prev + ig if type(prev) is not _ARRAY else _plus(prev, ig, a, owned)
                continue
            if len(inputs) != 2:
                need = node.needs_grad = tuple([i in relevant for i in inputs])
                got = _general_rule(node, g, True)
                if not got:
                    continue
                for inp, ig, wanted_here in zip(inputs, got, need):
                    if ig is None or not wanted_here:
                        continue
                    prev = get(inp)
                    grads[inp] = ig if prev is None else \
                        prev + ig if type(prev) is not _ARRAY else _plus(prev, ig, inp, owned)
                continue
            a, b = inputs
            need_a = a in relevant
            need_b = b in relevant
            node.needs_grad = (need_a, need_b)
            got = rule(node, g) if rule is not None else _general_rule(node, g, True)
        if got:                         # the two inputs' cotangents
            ga, gb = got
            if ga is not None and need_a:
                prev = get(a)
                grads[a] = ga if prev is None else \
                    prev + ga if type(prev) is not _ARRAY else _plus(prev, ga, a, owned)
            if gb is not None and need_b:
                prev = get(b)
                grads[b] = gb if prev is None else \
                    prev + gb if type(prev) is not _ARRAY else _plus(prev, gb, b, owned)
    return grads


def _tracked_step(node, inputs, rule, g, out, wanted, grads, relevant, owned):
    """``sweep_raw``'s step for a node whose rule is declared in inplace.py, given a large array
    cotangent: the same rule and sums, keeping track of the arrays only this sweep holds
    (``owned``) so that they can be written over instead of allocating new ones."""
    spare = owned.pop(out, None) == id(g) and out not in wanted     # only this sweep holds g
    if len(inputs) == 1:
        node.needs_grad = _ONE_INPUT
        rewrite = in_place(rule) if spare else None
        if rewrite is not None:
            ig = rewrite(node, g)
            _add_term(grads, owned, inputs[0], ig, True)
            return
        ig = rule(node, g)
        if ig is not None:
            _add_term(grads, owned, inputs[0], ig, is_new(ig, g, node))
        return
    a, b = inputs
    need_a = a in relevant
    need_b = b in relevant
    node.needs_grad = (need_a, need_b)
    got = rule(node, g)
    if got:
        ga, gb = got
        if ga is not None and need_a:
            _add_term(grads, owned, a, ga, ga is not gb and is_new(ga, g, node))
        if gb is not None and need_b:
            _add_term(grads, owned, b, gb, ga is not gb and is_new(gb, g, node))


def _add_term(grads, owned, key, term, new):
    """Add the cotangent ``term`` to ``key``'s (``new``: ``term`` is an array only this sweep
    holds); the sum is ``prev + term`` as everywhere else, written into an array the sweep owns
    when there is one."""
    prev = grads.get(key)
    if prev is None:
        grads[key] = term
        if new:
            owned[key] = id(term)
    elif type(prev) is not _ARRAY:
        grads[key] = prev + term
    elif new and owned.get(key) != id(prev) and term.shape == prev.shape \
            and term.dtype == prev.dtype:
        grads[key] = np.add(prev, term, out=term)
        owned[key] = id(term)
    else:
        grads[key] = _plus(prev, term, key, owned)


def _plus(prev, g, key, owned):
    """``prev + g`` for two cotangents of ``key`` (``prev`` a plain array). The first sum is a
    new array that only this sweep holds (``owned`` remembers it for ``key``); later terms are
    added into it in place, saving a full-size allocation per term. Nothing else can hold that
    sum: ``key``'s own node, the only place its cotangent is handed out, is swept after every
    node that adds to it."""
    if owned.get(key) == id(prev) and type(g) is np.ndarray and g.shape == prev.shape \
            and g.dtype == prev.dtype:
        np.add(prev, g, out=prev)
        return prev
    total = prev + g
    if type(total) is np.ndarray:
        owned[key] = id(total)
    return total


def _keep(key, default):
    return default


def _backwards(nodes, free):
    """The recorded nodes, last first; ``free`` pops each off the list as it is handed out, so
    its arrays can go as soon as the sweep is done with it (the list is the sweep's own)."""
    if not free:
        return reversed(nodes)
    nodes.insert(0, _END)
    return iter(nodes.pop, _END)


_END = object()


def sweep_tensors(nodes, grads, wanted, relevant, free):
    """The sweep with tensor rules (recorded by the tapes and accumulators that are active)."""
    get = grads.get
    for node in _backwards(nodes, free):
        if not grads:
            break
        outs = node.outputs
        if len(outs) == 1:
            out = outs[0]
            g = grads.pop(out, None) if out not in wanted else get(out)
            if g is None:
                continue
        else:
            g = _multi_output_grads(grads, outs, wanted, False)
            if g is None:
                continue
        inputs = node.inputs
        if len(inputs) == 1:
            node.needs_grad = _ONE_INPUT
        else:
            node.needs_grad = tuple([i in relevant for i in inputs])
        got = _general_rule(node, g, False)
        if not got:
            continue
        for inp, ig, wanted_here in zip(inputs, got, node.needs_grad):
            if ig is None or not wanted_here:
                continue
            if not isinstance(ig, Tensor):
                ig = _wrap(np.asarray(ig)[()])
            prev = get(inp)
            grads[inp] = ig if prev is None else prev + ig
    return grads


def _multi_output_grads(grads, outs, wanted, raw):
    """The cotangents of a multi-output node (zeros for outputs without one), or None if none."""
    got = [grads.get(o) for o in outs]
    if all(x is None for x in got):
        return None
    for o in outs:
        if o not in wanted:
            grads.pop(o, None)
    return _fill_missing(got, outs, raw)


def _general_rule(node, g, raw):
    """Input cotangents from a node's registered (tensor) rule, as a checked list (or None).

    ``g`` is the output cotangent, or a tuple of them for a multi-output node; ``raw`` says
    cotangents are NumPy values (the rule still runs on tensors, unrecorded).
    """
    rule = gradient_rule(node)
    if rule is None:
        return None
    out_grads = g if type(g) is tuple else (g,)
    if raw:
        out_grads = [_wrap(x) for x in out_grads]
    got = rule(node, *out_grads)
    if got is None:
        return None
    if not isinstance(got, (list, tuple)):
        got = (got,)
    if len(got) != len(node.inputs):
        raise ValueError(f"gradient rule for {node.op.name} returned {len(got)} "
                         f"gradients for {len(node.inputs)} inputs")
    if raw:
        return [None if x is None else (x._value if isinstance(x, Tensor) else np.asarray(x)[()])
                for x in got]
    return got


def _fill_missing(got, outs, raw):
    """Zeros for the outputs of a multi-output op that received no cotangent."""
    bshape = _batch_shape(got, outs)
    filled = []
    for x, o in zip(got, outs):
        if x is None:
            x = mark(np.zeros(bshape + o._value.shape, o._value.dtype))   # structural zeros
            x = x if raw else _wrap(x)
        filled.append(x)
    return tuple(filled)


def _batch_shape(got, outs):
    for g, o in zip(got, outs):
        if g is not None:
            return tuple(g.shape[:g.ndim - o.ndim])
    return ()
