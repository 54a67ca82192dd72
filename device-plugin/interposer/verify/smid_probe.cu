// A small library the Python checks load with ctypes into the same process as PyTorch: counts the
// distinct SMs of 4096 blocks on the runtime's default stream, and can fault on purpose.
#include <cuda_runtime.h>

#include <set>
#include <vector>

__global__ void probe_smid(int *ids) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  long long start = clock64();
  while (clock64() - start < 40000) {
  }
  if (threadIdx.x == 0) ids[blockIdx.x] = (int)smid;
}

__global__ void write_to(int *address) { *address = 1; }

extern "C" int smslice_distinct_sms(void) {
  const int blocks = 4096;
  int *ids;
  if (cudaMalloc(&ids, blocks * sizeof(int)) != cudaSuccess) return -1;
  probe_smid<<<blocks, 32>>>(ids);
  std::vector<int> host(blocks);
  if (cudaMemcpy(host.data(), ids, blocks * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
    return -2;
  cudaFree(ids);
  return (int)std::set<int>(host.begin(), host.end()).size();
}

// An illegal address: returns the CUDA error the synchronize reports.
extern "C" int smslice_fault(void) {
  write_to<<<1, 1>>>((int *)0x8);
  return (int)cudaDeviceSynchronize();
}
