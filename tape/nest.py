"""``tape.nest``: flatten and rebuild nested lists, tuples, dicts and namedtuples."""
from .engine.nest import assert_same_structure, flatten, is_nested, map_structure, pack_sequence_as  # noqa: F401
