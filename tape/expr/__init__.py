"""The expression language: text as people write it, the one tree, and its lowerings to tape, SymPy, mpmath and text."""
