"""Device memory for student kernels, in a process that may grade many submissions: every block
the memory pool takes from the driver is filled with poison before CuPy hands any of it out, and
between submissions the pool gives every block back. So whatever a kernel reaches, in bounds or
not, holds this submission's data or poison, never an earlier submission's. The device's own
heap (malloc in a kernel) is outside the pool: a process whose kernel used it is not reused."""

from __future__ import annotations

import gc
from typing import Any

from grader.backends.gpu.runtime import cuda_errors


def uses_device_heap(cubin: bytes) -> bool:
    """Whether a kernel calls the device's own allocator (malloc, new): the driver resolves the
    call by name, so the cubin names it, however the source spelled it. That heap belongs to the
    CUDA context, outside any pool: what one submission leaves there, the next could find, so a
    process that ran such a kernel grades nothing more."""
    return b"malloc" in cubin


SCRUB_BYTE = 0xFF
"""Every byte of a new block: 0xFFFFFFFF is a NaN as float32, as the correctness poison is."""


class ScrubbedPool:
    """CuPy's memory pool over blocks poisoned when allocated; the process's allocator."""

    def __init__(self, cp: Any) -> None:
        self._cp = cp

        def new_block(size: int) -> Any:
            memory = cp.cuda.memory.Memory(size)
            if size:
                cp.cuda.runtime.memset(memory.ptr, SCRUB_BYTE, size)
            return cp.cuda.MemoryPointer(memory, 0)

        self._pool = cp.cuda.MemoryPool(new_block)
        cp.cuda.set_allocator(self._pool.malloc)

    def release(self) -> bool:
        """After a submission: wait for the device, drop what the last one left (arrays, loaded
        modules), give every block back to the driver. False if the context is lost, or memory
        is still in use (something kept an array: the process must not grade another)."""
        cp = self._cp
        try:
            cp.cuda.runtime.deviceSynchronize()
            gc.collect()  # arrays and RawModules of the last submission: modules unload here
            self._pool.free_all_blocks()
            cp.get_default_pinned_memory_pool().free_all_blocks()
            cp.cuda.runtime.deviceSynchronize()
        except cuda_errors(cp):
            return False
        return int(self._pool.used_bytes()) == 0 and int(self._pool.total_bytes()) == 0
