// The timed launch's output against its float64 reference, in one pass (grader/backends/gpu/comparison.py).
// Compiled once by the grader, like a student's kernel, and cached.

// pristine: the check's own copy of an input; given: the buffer the timed kernel was given.
// wide and magnitude receive the copy in float64 and its absolute value; changed counts the
// elements where the kernel's buffer no longer equals the copy (it wrote into its input).
extern "C" __global__ void widen(const float *pristine, const float *given, double *wide,
                                 double *magnitude, long long n, unsigned long long *changed)
{
    unsigned long long my_changed = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const float v = pristine[i];
        if (__float_as_uint(given[i]) != __float_as_uint(v)) ++my_changed;
        wide[i] = v;
        magnitude[i] = fabs((double)v);
    }
    for (int offset = 16; offset > 0; offset /= 2)
        my_changed += __shfl_down_sync(0xffffffffu, my_changed, offset);
    if ((threadIdx.x & 31) == 0 && my_changed) atomicAdd(changed, my_changed);
}

// bad[0]: elements with |c - reference| > scale * magnitude + floor (NaN included);
// sums[0]: sum of (c - reference)^2, sums[1]: sum of reference^2.
extern "C" __global__ void compare_output(const float *c, const double *reference,
                                          const double *magnitude, long long n, double scale,
                                          double floor_, unsigned long long *bad, double *sums)
{
    unsigned long long my_bad = 0;
    double my_d2 = 0.0, my_r2 = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const double d = (double)c[i] - reference[i];
        if (!(fabs(d) <= scale * magnitude[i] + floor_)) ++my_bad;
        my_d2 += d * d;
        my_r2 += reference[i] * reference[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        my_bad += __shfl_down_sync(0xffffffffu, my_bad, offset);
        my_d2 += __shfl_down_sync(0xffffffffu, my_d2, offset);
        my_r2 += __shfl_down_sync(0xffffffffu, my_r2, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(bad, my_bad);
        atomicAdd(&sums[0], my_d2);
        atomicAdd(&sums[1], my_r2);
    }
}
