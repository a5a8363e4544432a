"""The ``tape`` console script's entry point.

It lives outside the ``tape`` package on purpose: importing anything inside it first runs
``tape/__init__`` (NumPy, ~0.2 s), and Ctrl-C during that start-up must end tape quietly, not
with a KeyboardInterrupt traceback. So before anything else, SIGINT gets its default action
back: Ctrl-C ends the process at once, which a shell reports as 130. (Python's own handler
raises KeyboardInterrupt wherever an import happens to be.) A SIGINT inherited as ignored, as
in a background job, stays ignored. ``tape/__init__`` does the same for ``python -m tape``, and
``tape.cli.process.run`` hands Ctrl-C to the app once it is loaded.

``_signal`` is the C module behind ``signal``: importing ``signal`` itself builds enums, long
enough for a Ctrl-C to land in it.
"""
import _signal

if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)


def main() -> None:
    from tape.cli.app import main as run_tape

    run_tape()
