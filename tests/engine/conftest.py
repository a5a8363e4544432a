import pytest

from tape.engine.module import clear_session


@pytest.fixture(autouse=True)
def _fresh_layer_names():
    """Each test starts layer naming afresh, so the first Dense is "dense" as in the tutorials."""
    clear_session()
    yield
