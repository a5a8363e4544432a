"""Nested structures (lists, tuples, dicts, namedtuples) flattened and rebuilt, as tf.nest does.

Dicts are traversed in sorted key order, like TensorFlow. Everything that is not a list, tuple
or dict (tensors, numbers, None) is a leaf.
"""
from __future__ import annotations


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(structure) -> bool:
    return isinstance(structure, (list, tuple, dict))


def _children(structure):
    if isinstance(structure, dict):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def flatten(structure, expand_composites=False) -> list:
    """The leaves of a nest in order (iteratively, so deep nests do not hit the recursion limit)."""
    if not is_nested(structure):
        return [structure]
    out = []
    stack = [iter(_children(structure))]
    while stack:
        for item in stack[-1]:
            if is_nested(item):
                stack.append(iter(_children(item)))
                break
            out.append(item)
        else:
            stack.pop()
    return out


def _rebuild(template, children):
    if isinstance(template, dict):
        keys = _sorted_keys(template)
        built = dict(zip(keys, children))
        return type(template)((k, built[k]) for k in template) if type(template) is not dict \
            else {k: built[k] for k in template}
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children)


def pack_sequence_as(structure, flat_sequence):
    """Rebuild ``structure``'s nesting with the leaves of ``flat_sequence``."""
    flat_sequence = list(flat_sequence)
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(f"pack_sequence_as: the structure has {n} leaves but {len(flat_sequence)} "
                         "values were given")
    return _build(structure, iter(flat_sequence))


def _build(structure, leaves):
    # A module-level function, not a closure calling itself: a self-referencing closure is a
    # reference cycle, which would keep the leaves (often large gradients) alive until the next
    # garbage collection.
    if not is_nested(structure):
        return next(leaves)
    return _rebuild(structure, [_build(c, leaves) for c in _children(structure)])


def map_structure(func, *structures):
    """Apply ``func`` leaf by leaf to structures of the same shape; the result has that shape."""
    if not structures:
        raise ValueError("map_structure: at least one structure is required")
    flats = [flatten(s) for s in structures]
    for s, f in zip(structures[1:], flats[1:]):
        assert_same_structure(structures[0], s)
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])


def assert_same_structure(a, b, check_types=False):
    """ValueError unless ``a`` and ``b`` nest the same way."""
    if is_nested(a) != is_nested(b):
        raise ValueError(f"The two structures don't have the same nested structure: {a!r} vs {b!r}")
    if not is_nested(a):
        return
    if isinstance(a, dict) != isinstance(b, dict):
        raise ValueError(f"The two structures don't have the same nested structure: {a!r} vs {b!r}")
    if isinstance(a, dict) and set(a) != set(b):
        raise ValueError(f"The two structures don't have the same keys: {sorted(map(str, a))} vs "
                         f"{sorted(map(str, b))}")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise ValueError(f"The two structures don't have the same number of elements: "
                         f"{len(ca)} vs {len(cb)}")
    for x, y in zip(ca, cb):
        assert_same_structure(x, y, check_types)
