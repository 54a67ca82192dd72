// Test kernels for the agent's verification on a real GPU and, by name and parameters, the
// kernels the simulated backend implements on the CPU. Compile: nvcc -ptx -arch=sm_90 kernels.cu
#include <cstdint>

extern "C" __global__ void empty() {}

// Busy-waits for `cycles` SM clock cycles in every thread (victim and aggressor workloads).
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

extern "C" __global__ void copy_u32(const uint32_t* src, uint32_t* dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Writes the id of the SM each block ran on; blocks linger a little so they spread over SMs.
extern "C" __global__ void record_smid(uint32_t* out) {
  if (threadIdx.x == 0) {
    uint32_t id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    out[blockIdx.x] = id;
  }
  long long start = clock64();
  while (clock64() - start < 20000) {
  }
}

// Reads one word from any address: the cross-claim read attempt and the illegal-address fault.
extern "C" __global__ void load_u32(const uint32_t* src, uint32_t* dst) { dst[0] = src[0]; }
