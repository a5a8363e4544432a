"""Fixtures for the CLI tests (helpers live in cli_helpers.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_helpers import SAMPLES


@pytest.fixture
def samples() -> Path:
    """The samples/ directory."""
    return SAMPLES
