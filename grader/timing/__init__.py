"""Timing kernels: the L2 flush before every launch, the interleaving of the kernels compared
(baseline, student, cuBLAS where shown) in one loop, every launch's output verified, and the
statistics, from pytest-benchmark's own Stats. The device primitives come from the backend
(backends.timed_gemm); nothing here imports CuPy.

rounds.py runs the loop; samples.py holds the samples and the figures from them;
benchmark_json.py writes them as pytest-benchmark's JSON."""
