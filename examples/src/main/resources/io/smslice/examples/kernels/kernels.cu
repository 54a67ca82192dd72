// Kernels of the example workloads. Names and parameters match the kernels the agent's simulated
// backend implements, so the same PTX runs on a real GPU and in the demo without one.
// Rebuild the PTX after a change:  nvcc -ptx -arch=sm_90 -o kernels.ptx kernels.cu
#include <stdint.h>

extern "C" __global__ void empty() {}

// Busy-waits for the given number of SM clock cycles: the stand-in for a model's compute.
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

extern "C" __global__ void fill_u32(uint32_t* out, uint32_t value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void copy_u32(const uint32_t* source, uint32_t* target, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) target[i] = source[i];
}

// One entry per block: the SM the block ran on, to show which SMs a slice really uses.
extern "C" __global__ void record_smid(uint32_t* out) {
  if (threadIdx.x == 0) {
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    out[blockIdx.x] = smid;
  }
}

extern "C" __global__ void load_u32(const uint32_t* source, uint32_t* target) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *target = *source;
}
