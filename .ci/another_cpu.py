"""Print the environment under which this machine computes as another CPU would.

The last bits of a float depend on the CPU twice over: OpenBLAS picks its kernels per CPU
(OPENBLAS_CORETYPE), and NumPy picks per CPU the SIMD loops of exp, log, sin and power
(NPY_DISABLE_CPU_FEATURES). .ci/run runs the tests again under this environment, so that a test
that depends on the last bit fails here before it fails on a user's machine.
"""
import os
import platform

try:
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
except ImportError:                                     # NumPy 1.x
    from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__

settings = {}
if platform.machine().lower() in ("x86_64", "amd64"):
    # Prescott is OpenBLAS's plain SSE3 kernel, unlike the AVX2/AVX-512 ones CPUs pick today
    current = os.environ.get("OPENBLAS_CORETYPE", "")
    settings["OPENBLAS_CORETYPE"] = "Haswell" if current.lower() == "prescott" else "Prescott"
    wide = [t for t in __cpu_dispatch__ if "512" in t or t == "X86_V4"]
    if any(__cpu_features__.get(t) for t in wide):
        settings["NPY_DISABLE_CPU_FEATURES"] = ",".join(wide)          # as a CPU without AVX-512
    else:
        narrower = [t for t in __cpu_dispatch__ if t in ("AVX2", "FMA3", "X86_V3")]
        if narrower:
            settings["NPY_DISABLE_CPU_FEATURES"] = ",".join(narrower)  # as a CPU without AVX2
for name, value in settings.items():
    print(f"{name}={value}")
