// cuda_cpu_types.hpp: what the kernel's unit (cuda_kernel.hpp) and the runtime's (cuda_cpu.hpp)
// share: CUDA's uint3 and dim3, and the head of the launch's state, through which a kernel reads
// threadIdx, blockIdx, blockDim and gridDim with one load each. No header of the system's: the
// kernel's unit sees nothing but CUDA's names.
#pragma once

// CUDA's two types, as its vector_types.h declares them: two types (a kernel that told them
// apart passed on the CPU only while uint3 was dim3 here: red team, round 5), and at global
// scope, so that no value a kernel can name has a namespace of the runtime's among its
// associated ones (in namespace gg, argument-dependent lookup of a call with a Conv<uint3>
// argument found gg's functions on the CPU only: round 6)
struct uint3 {
    unsigned x, y, z;
};

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

namespace gg {

// A warp operation, as the kernel's unit asks the runtime for one.
enum class WarpOp { Sync, Shfl, ShflUp, ShflDown, ShflXor, Ballot, Any, All };

// What the kernel reads of the launch: its geometry, the running block's index and the running
// thread's, in memory the kernel's unit sees read-only (cuda_cpu.hpp: KernelView).
struct LaunchHead {
    dim3 grid, block;
    uint3 block_idx;
    const uint3 *thread_idx;
};

}  // namespace gg
