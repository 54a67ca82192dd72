// An unmodified CUDA runtime program: counts the distinct SMs (%smid) that 4096 blocks ran on,
// for every kind of stream the runtime offers, on two extra threads and in a graph replay.
// Under the interposer every line should show the claim's SM count. Prints "<stream> <distinct>".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s: %s (%d)\n", #call, cudaGetErrorString(e_), (int)e_);     \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

constexpr int kBlocks = 4096;

__global__ void record_smid(int *ids) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  // Long enough (~20 us) that the blocks spread over every SM the context may use.
  long long start = clock64();
  while (clock64() - start < 40000) {
  }
  if (threadIdx.x == 0) ids[blockIdx.x] = (int)smid;
}

static int distinct(cudaStream_t stream, bool graph = false) {
  int *ids;
  CHECK(cudaMalloc(&ids, kBlocks * sizeof(int)));
  CHECK(cudaMemsetAsync(ids, 0xff, kBlocks * sizeof(int), stream));
  if (graph) {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    record_smid<<<kBlocks, 32, 0, stream>>>(ids);
    CHECK(cudaStreamEndCapture(stream, &g));
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaGraphLaunch(exec, stream));
  } else {
    record_smid<<<kBlocks, 32, 0, stream>>>(ids);
    CHECK(cudaGetLastError());
  }
  std::vector<int> host(kBlocks);
  CHECK(cudaMemcpyAsync(host.data(), ids, kBlocks * sizeof(int), cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaFree(ids));
  std::set<int> sms(host.begin(), host.end());
  return (int)sms.size();
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("device-sms %d\n", sms);
  printf("legacy-default %d\n", distinct(cudaStreamLegacy));
  printf("null-stream %d\n", distinct(0));
  printf("per-thread-default %d\n", distinct(cudaStreamPerThread));
  cudaStream_t created, nonblocking, prioritised;
  CHECK(cudaStreamCreate(&created));
  printf("created %d\n", distinct(created));
  CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
  printf("non-blocking %d\n", distinct(nonblocking));
  int least, greatest;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(cudaStreamCreateWithPriority(&prioritised, cudaStreamNonBlocking, greatest));
  printf("prioritised %d\n", distinct(prioritised));
  printf("graph-replay %d\n", distinct(created, true));
  int thread_sms[4] = {0, 0, 0, 0};
  auto worker = [&](int i) {
    CHECK(cudaSetDevice(0));
    cudaStream_t own;
    CHECK(cudaStreamCreate(&own));
    thread_sms[2 * i] = distinct(own);
    thread_sms[2 * i + 1] = distinct(cudaStreamPerThread);
  };
  std::thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  printf("thread1-created %d\nthread1-per-thread %d\n", thread_sms[0], thread_sms[1]);
  printf("thread2-created %d\nthread2-per-thread %d\n", thread_sms[2], thread_sms[3]);
  return 0;
}
