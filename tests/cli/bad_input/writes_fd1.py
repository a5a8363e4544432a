"""Writes to descriptor 1 behind tape's back in every way a script can; each line is marked
"(script)" so that the catalogue test can tell it from tape's own diagnostics."""
import atexit
import os
import sys
import threading
import time

os.write(1, b"(script) os.write(1) at import\n")
sys.__stdout__.write("(script) sys.__stdout__ at import\n")
atexit.register(lambda: os.write(1, b"(script) os.write(1) at exit\n"))


def _late():
    time.sleep(0.3)
    os.write(1, b"(script) os.write(1) from a thread, late\n")


def f(x):
    os.write(1, b"(script) os.write(1) in the call\n")
    print("(script) print in the call")
    threading.Thread(target=_late).start()
    return x * x
