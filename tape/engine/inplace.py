"""Large cotangents that only the backward sweep holds, and rules that may write over them.

On large arrays every new full-size result is memory traffic of its own: the fresh buffer is
read into cache before it is written. The first-order sweep (``sweep.sweep_raw``) saves that
traffic where it can prove an array is its own: an array a rule just returned is new, hence held
by no one else, when it is neither the cotangent the rule was given nor a value of the node
(nor a view of anything: ``base is None``). The sweep remembers such arrays and then

- adds the next term of a sum of cotangents into it in place (``sweep._plus``);
- gives it, as the cotangent of the node that consumes it, to the op's in-place rule, which
  writes its result over it (``-g`` of a negation) instead of allocating another array.

Only rules declared here take part: ``returns_new_arrays`` is a promise about where a fast
rule's array results come from, not something the sweep could check on other rules.
"""
from __future__ import annotations

import numpy as np

#: elements: from this size on, a full-size pass costs memory traffic worth saving; smaller
#: arrays stay in cache and take the plain path
MIN_SIZE = 32768

_NEW_RESULTS = set()    # fast rules whose array results are new arrays, g itself or node values
_IN_PLACE = {}          # fast rule -> the same rule writing its result over the cotangent g


def returns_new_arrays(*ops) -> None:
    """Declare that each op's fast rule returns, for each input, None, a NumPy scalar, or an
    array that is new, the cotangent it was given, or one of the node's own input/output
    values (one new array for both inputs is allowed: the sweep then owns it for neither). An
    op whose gradient is overridden loses its fast rule, and the declaration with it."""
    for op in ops:
        if op.fast is None:
            raise ValueError(f"returns_new_arrays: {op.name} has no fast gradient rule")
        _NEW_RESULTS.add(op.fast)


def in_place_rule(op, rule) -> None:
    """``rule(node, g)``: the one-input ``op``'s fast rule computing exactly the same numbers,
    written over ``g`` (a plain, writeable ndarray of the output's shape that nothing else holds)
    and returned."""
    if op.fast not in _NEW_RESULTS:
        raise ValueError(f"in_place_rule: declare {op.name} with returns_new_arrays first")
    _IN_PLACE[op.fast] = rule


def tracked(rule) -> bool:
    """Whether the sweep can tell which of ``rule``'s results are new arrays."""
    return rule in _NEW_RESULTS


def in_place(rule):
    """``rule``'s in-place variant, or None."""
    return _IN_PLACE.get(rule)


def is_new(result, g, node) -> bool:
    """Whether ``result``, returned by a declared rule of ``node`` given the cotangent ``g``, is
    an array the rule made (so only whoever it is handed to holds it)."""
    if type(result) is not np.ndarray or result.base is not None or result is g:
        return False
    for t in node.inputs:
        if result is t._value:
            return False
    return result is not node.outputs[0]._value
