"""docs/numpy.md's examples run as doctests: the page shows real output."""
import doctest
from pathlib import Path

import numpy as np

import tape

DOC = Path(__file__).resolve().parents[2] / "docs" / "numpy.md"


def test_numpy_page_examples():
    result = doctest.testfile(str(DOC), module_relative=False, globs={"np": np, "tape": tape},
                              optionflags=doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL)
    assert result.attempted > 5 and result.failed == 0, result
