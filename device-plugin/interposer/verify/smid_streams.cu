// An unmodified CUDA runtime program: counts the distinct SMs (%smid) that 4096 blocks ran on,
// for every kind of stream the runtime offers, on two extra threads and in a graph replay.
// Under the interposer every line should show the claim's SM count. Prints "<stream> <distinct>".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
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

// A step that may fail on one stream kind: report which step and go on with the next kind.
#define STEP(call)                                                                   \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      snprintf(why, sizeof why, "%s:%s", #call, cudaGetErrorName(e_));               \
      for (char *c = why; *c; c++)                                                   \
        if (*c == ' ') *c = '_';                                                     \
      cudaGetLastError();                                                            \
      return why;                                                                    \
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

// "<distinct SMs>" or "error:<step>:<CUDA error>".
static std::string distinct(cudaStream_t stream, bool graph = false) {
  static thread_local char why[256];
  int *ids;
  STEP(cudaMalloc(&ids, kBlocks * sizeof(int)));
  if (graph) {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    STEP(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    record_smid<<<kBlocks, 32, 0, stream>>>(ids);
    STEP(cudaStreamEndCapture(stream, &g));
    STEP(cudaGraphInstantiate(&exec, g, 0));
    STEP(cudaGraphLaunch(exec, stream));
    STEP(cudaGraphLaunch(exec, stream));
  } else {
    record_smid<<<kBlocks, 32, 0, stream>>>(ids);
    STEP(cudaGetLastError());
  }
  std::vector<int> host(kBlocks);
  STEP(cudaMemcpyAsync(host.data(), ids, kBlocks * sizeof(int), cudaMemcpyDeviceToHost, stream));
  STEP(cudaStreamSynchronize(stream));
  STEP(cudaFree(ids));
  std::set<int> sms(host.begin(), host.end());
  return std::to_string(sms.size());
}

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("device-sms %d\n", sms);
  printf("legacy-default %s\n", distinct(cudaStreamLegacy).c_str());
  printf("null-stream %s\n", distinct(0).c_str());
  cudaStream_t created, nonblocking, prioritised;
  CHECK(cudaStreamCreate(&created));
  printf("created %s\n", distinct(created).c_str());
  CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
  printf("non-blocking %s\n", distinct(nonblocking).c_str());
  int least, greatest;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(cudaStreamCreateWithPriority(&prioritised, cudaStreamNonBlocking, greatest));
  printf("prioritised %s\n", distinct(prioritised).c_str());
  printf("graph-replay %s\n", distinct(created, true).c_str());
  printf("per-thread-default %s\n", distinct(cudaStreamPerThread).c_str());
  std::string thread_sms[4];
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
  printf("thread1-created %s\nthread1-per-thread %s\n", thread_sms[0].c_str(), thread_sms[1].c_str());
  printf("thread2-created %s\nthread2-per-thread %s\n", thread_sms[2].c_str(), thread_sms[3].c_str());
  return 0;
}
