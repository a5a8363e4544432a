"""``tape.math``: elementwise arithmetic, complex parts, comparisons and reductions."""
from .engine.ops.cast import *  # noqa: F401,F403
from .engine.ops.compare import *  # noqa: F401,F403
from .engine.ops.math import *  # noqa: F401,F403
from .engine.ops.nn import log_softmax, softmax  # noqa: F401
from .engine.ops.reduce import *  # noqa: F401,F403
