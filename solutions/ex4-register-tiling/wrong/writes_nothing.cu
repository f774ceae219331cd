// WRONG: computes nothing and writes nothing, hoping C still holds an earlier run's result (reused memory)
// expect: correctness "never written"

#ifndef TILE_SIZE
#define TILE_SIZE 16
#endif

__global__ void matmul_tiled_2x2(const float *A, const float *B, float *C, int M, int K, int N)
{
    // Nothing: a grader that reused the output buffer of a correct run would see right answers.
}
