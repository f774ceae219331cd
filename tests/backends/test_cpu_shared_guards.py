"""The checked CPU build gives the GPU's verdict around `__shared__` arrays and on wrapping
integers. On an H100 (`grader check ex1 --backend gpu`, ex1's solution changed in one line each):
a read just past the last shared array faults (the CPU fails it); one just below the first reads
the 1 KB a GPU reserves there, garbage that failed one case (the CPU had passed it: now it reads
NaN and fails); a kernel whose `int` wraps passes (UBSan's signed-overflow check had failed it).
A read from the first array into the next does not fault on a GPU; through a pointer g++ can see,
UBSan's object-size check still fails it here, and through one it cannot, it now reaches the
next array declared, as on a GPU (g++ had laid them out in reverse)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from grader.backends.base import KernelRuntimeError, UnsupportedKernelError
from grader.backends.compiler import CompiledKernel, compile_kernel
from grader.backends.cpu import CpuBackend, CpuUnavailableError, check_toolchain
from grader.checks.correctness import make_launch
from grader.source import KernelSource
from grader.spec import LaunchSpec, Shape

try:
    check_toolchain()
except CpuUnavailableError as exc:
    pytest.skip(f"CPU backend unavailable: {exc}", allow_module_level=True)

# One block of 64 threads; C is 1 x 64 (small enough for the checked build). The read goes through
# a volatile pointer, where UBSan's object-size check cannot see which array it came from: what
# happens there is the layout's and the guards' doing. (A `__noinline__` function did it until
# round 22: ptxas puts the arrays a function it keeps names after the kernel's own, so first[64]
# was past the end on a GPU; such a kernel is now left to a GPU.)
READ = """
__global__ void probe(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float first[64];
    __shared__ float second[64];
    const int i = threadIdx.x;
    first[i] = 1.0f;
    second[i] = 2.0f;
    __syncthreads();
    const float *volatile from = &%s[0];  // neither compiler can tell which array it points into
    C[i] = from[i + %s] + 0.0f * (first[i] + second[i]);  // both read: NVVM keeps both
}
"""

WRAPS = """
__global__ void probe(const float *A, const float *B, float *C, int M, int K, int N)
{
    const int i = threadIdx.x;
    volatile int big = 2147483600;
    const int wrapped = big + i * 100;  // wraps for i > 0, as a GPU's integers do
    C[i] = wrapped == 7 ? -1.0f : 1.0f;
}
"""


def _run(body: str) -> npt.NDArray[np.float32]:
    """C after one launch of `probe` on the CPU backend."""
    source = KernelSource(body, "probe.cu")
    compiled = compile_kernel(source, "probe", {})
    assert isinstance(compiled, CompiledKernel), compiled
    shape = Shape(1, 1, 64)
    a = np.zeros((1, 1), dtype=np.float32)
    b = np.zeros((1, 64), dtype=np.float32)
    launch = make_launch(a, b, shape, LaunchSpec(block=(64, 1), tile=(64, 1)))
    backend = CpuBackend()
    try:
        backend.prepare(source, compiled, {})
        return backend.run_gemm(launch).c[launch.offset : launch.offset + 64]
    finally:
        backend.close()


def test_a_read_past_the_first_shared_array_reaches_the_next_declared() -> None:
    assert np.array_equal(_run(READ % ("first", "64")), np.full(64, 2.0, dtype=np.float32))


def test_a_read_below_the_first_shared_array_gets_the_reserved_kb_as_nan() -> None:
    assert np.isnan(_run(READ % ("first", "-256"))).all()


@pytest.mark.parametrize(
    ("array", "offset"),
    [
        ("first", "128"),  # just past the last array (the pointer is first's: whatever the
        # order NVVM gives the arrays, ptxas's order is then g++'s, or the build refuses)
        ("first", "60064"),  # 234 KB past it: more than a block's shared memory
        ("first", "-512"),  # 2 KB below the first array: 1 KB below the reserved KB
    ],
)
def test_a_read_outside_the_shared_memory_fails_at_its_line(array: str, offset: str) -> None:
    with pytest.raises(KernelRuntimeError, match=r"probe\.cu:11: a read of 4 bytes outside the "):
        _run(READ % (array, offset))


def test_a_read_outside_the_shared_arrays_is_named_so() -> None:
    with pytest.raises(KernelRuntimeError, match="outside the block's shared memory"):
        _run(READ % ("first", "129"))


def test_an_int_that_wraps_is_no_error() -> None:
    assert np.array_equal(_run(WRAPS), np.ones(64, dtype=np.float32))


def test_a_kernel_cannot_name_the_symbols_that_bound_the_shared_memory() -> None:
    # shared.ld's symbols: a variable of that name would alias the shared memory, or clobber what
    # lies past it
    body = READ.replace("__global__", "__device__ char _GG_shared_begin[2048];\n__global__")
    compiled = compile_kernel(KernelSource(body, "probe.cu"), "probe", {})
    assert not isinstance(compiled, CompiledKernel)
    assert "_GG_shared_begin is not allowed" in compiled.message


OTHER_KERNEL = """
__global__ void probe(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float tile[64];
    const int i = threadIdx.x;
    float *p = &tile[0];
    p[i + 1] = A[0];  // one past the end for the last thread: a fault on a GPU
    __syncthreads();
    C[i] = 1.0f + 0.0f * tile[i];  // read (and not one constant): NVVM keeps the array
}

__global__ void naive(const float *A, const float *B, float *C, int M, int K, int N)
{
    __shared__ float spare[64];  // laid out after `tile`, but not this launch's on a GPU
    spare[threadIdx.x] = A[0];
    C[threadIdx.x] = spare[(threadIdx.x + 1) % 64];
}
"""


def test_a_file_of_two_kernels_with_shared_arrays_is_left_to_a_gpu() -> None:
    # the red team's: without UBSan's object-size check the write landed in `spare`, and passed;
    # a GPU lays out each kernel's shared memory apart (and in its own order: round 21), the CPU
    # backend one for the file, so a write past `tile` reaches `spare` here and faults there
    with pytest.raises(UnsupportedKernelError, match="several kernels that reach __shared__"):
        _run(OTHER_KERNEL)


def test_a_kernel_cannot_name_the_sanitizers_functions() -> None:
    # the red team's: an empty __asan_poison_memory_region left the guards unpoisoned
    body = (
        'extern "C" __device__ void __asan_poison_memory_region(const void *p, unsigned long n)'
        " {}\n"
    )
    compiled = compile_kernel(KernelSource(body + READ % ("second", "64"), "probe.cu"), "probe", {})
    assert not isinstance(compiled, CompiledKernel)
    assert "__asan_poison_memory_region is not allowed" in compiled.message
