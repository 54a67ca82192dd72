// What green contexts do not isolate: a 16-SM victim's kernel time beside HBM-copy neighbours of
// 24, 64 and 116 SMs, each in its own green context of one split (disjoint SMs). A memory-bound
// victim (streaming read) shares memory bandwidth and L2 with them; a compute-bound one (spin)
// should not notice. Built and run by run-bandwidth-on-gpu.sh:
//   nvcc -O2 -arch=sm_90 -o bandwidth bandwidth.cu -lcuda && ./bandwidth [samples]
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

static void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
    std::exit(1);
  }
}
#define CK(call) check((call), #call)

__global__ void readAll(const float4* __restrict__ in, size_t n, float* sink) {
  float acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  if (acc == 12345.0f) *sink = acc;  // never true for the zeroed buffer; keeps the loads
}

__global__ void copyAll(const float4* __restrict__ in, float4* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    out[i] = in[i];
  }
}

__global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// A green context made of some of the split's groups, with a stream of its own.
struct Slice {
  CUcontext ctx;
  CUstream stream;
  int sms;
};

static Slice slice(CUdevice dev, const std::vector<CUdevResource>& parts) {
  CUdevResourceDesc desc;
  CK(cuDevResourceGenerateDesc(&desc, const_cast<CUdevResource*>(parts.data()), parts.size()));
  CUgreenCtx g;
  CK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
  Slice s{nullptr, nullptr, 0};
  CK(cuCtxFromGreenCtx(&s.ctx, g));
  CK(cuGreenCtxStreamCreate(&s.stream, g, CU_STREAM_NON_BLOCKING, 0));
  for (auto& p : parts) s.sms += p.sm.smCount;
  return s;
}

static const size_t VICTIM_BYTES = 64ull << 20;
static const size_t HOG_BYTES = 1ull << 30;
static const long long SPIN_CYCLES = 250000;

struct Result {
  std::vector<double> us;
  double hogGBs;
};

// Victim kernel times (events on its stream) while a hog, if any, copies in a loop, 2 in flight.
static Result measure(const Slice& victim, bool memoryBound, const Slice* hog, int samples) {
  std::atomic<bool> stop{false};
  std::atomic<long> copies{0};
  std::thread load;
  if (hog) {
    load = std::thread([&] {
      CK(cuCtxSetCurrent(hog->ctx));
      float4 *in, *out;
      CK(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(&in), HOG_BYTES));
      CK(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(&out), HOG_BYTES));
      CK(cuMemsetD8(reinterpret_cast<CUdeviceptr>(in), 0, HOG_BYTES));
      size_t n = HOG_BYTES / sizeof(float4);
      cudaStream_t s = reinterpret_cast<cudaStream_t>(hog->stream);
      while (!stop.load()) {
        copyAll<<<hog->sms * 8, 256, 0, s>>>(in, out, n);
        copyAll<<<hog->sms * 8, 256, 0, s>>>(in, out, n);
        CK(cuStreamSynchronize(hog->stream));
        copies += 2;
      }
      CK(cuMemFree(reinterpret_cast<CUdeviceptr>(in)));
      CK(cuMemFree(reinterpret_cast<CUdeviceptr>(out)));
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CK(cuCtxSetCurrent(victim.ctx));
  float4* buf;
  float* sink;
  CK(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(&buf), VICTIM_BYTES));
  CK(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(&sink), sizeof(float)));
  CK(cuMemsetD8(reinterpret_cast<CUdeviceptr>(buf), 0, VICTIM_BYTES));
  CUevent before, after;
  CK(cuEventCreate(&before, CU_EVENT_DEFAULT));
  CK(cuEventCreate(&after, CU_EVENT_DEFAULT));
  cudaStream_t s = reinterpret_cast<cudaStream_t>(victim.stream);
  Result r{{}, 0};
  long copiesAtStart = copies.load();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < samples + 50; i++) {
    CK(cuEventRecord(before, victim.stream));
    if (memoryBound) {
      readAll<<<victim.sms * 8, 256, 0, s>>>(buf, VICTIM_BYTES / sizeof(float4), sink);
    } else {
      spin<<<16, 256, 0, s>>>(SPIN_CYCLES);
    }
    CK(cuEventRecord(after, victim.stream));
    CK(cuEventSynchronize(after));
    float ms;
    CK(cuEventElapsedTime(&ms, before, after));
    if (i >= 50) r.us.push_back(ms * 1000.0);
  }
  auto t1 = std::chrono::steady_clock::now();
  long copiesDuring = copies.load() - copiesAtStart;
  stop = true;
  if (hog) load.join();
  r.hogGBs = copiesDuring * 2.0 * HOG_BYTES / 1e9 / std::chrono::duration<double>(t1 - t0).count();
  CK(cuMemFree(reinterpret_cast<CUdeviceptr>(buf)));
  CK(cuMemFree(reinterpret_cast<CUdeviceptr>(sink)));
  std::sort(r.us.begin(), r.us.end());
  return r;
}

static double pct(const std::vector<double>& v, double p) {
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

int main(int argc, char** argv) {
  int samples = argc > 1 ? std::atoi(argv[1]) : 500;
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  char name[256];
  CK(cuDeviceGetName(name, sizeof name, dev));

  // The node's one split: groups of 8 SMs and a remainder. Victim: groups 0-1; hogs from group 2 on.
  CUdevResource sm, remaining;
  CK(cuDeviceGetDevResource(dev, &sm, CU_DEV_RESOURCE_TYPE_SM));
  unsigned groups = 0;
  CK(cuDevSmResourceSplitByCount(nullptr, &groups, &sm, &remaining, 0, 8));
  std::vector<CUdevResource> split(groups);
  CK(cuDevSmResourceSplitByCount(split.data(), &groups, &sm, &remaining, 0, 8));
  Slice victim = slice(dev, {split[0], split[1]});
  std::vector<Slice> hogs;
  for (unsigned count : {3u, 8u}) {
    hogs.push_back(slice(dev, std::vector<CUdevResource>(split.begin() + 2, split.begin() + 2 + count)));
  }
  std::vector<CUdevResource> rest(split.begin() + 2, split.end());
  rest.push_back(remaining);
  hogs.push_back(slice(dev, rest));

  std::printf("# Memory bandwidth is shared: a 16-SM victim beside HBM-copy neighbours in green contexts\n\n");
  std::printf("GPU: %s; split: %u groups of 8 SMs + remainder of %u; victim %d SMs (groups 0-1)\n", name,
              groups, remaining.sm.smCount, victim.sms);
  std::printf("Memory-bound victim: streaming read of %zu MiB; compute-bound victim: 16 x 256 threads spinning %lld cycles.\n",
              VICTIM_BYTES >> 20, SPIN_CYCLES);
  std::printf("Neighbour: copy kernel over %zu MiB (read + write), 2 launches in flight, in its own green context.\n",
              HOG_BYTES >> 20);
  std::printf("Kernel time by CUDA events on the victim's stream; %d samples after 50 warm-up.\n\n", samples);
  std::printf("| victim | neighbour SMs | victim p50 us | victim p99 us | p50 / alone | victim GB/s (p50) | neighbour GB/s |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (bool memoryBound : {true, false}) {
    const char* kind = memoryBound ? "memory-bound" : "compute-bound";
    Result alone = measure(victim, memoryBound, nullptr, samples);
    double base = pct(alone.us, 0.5);
    auto row = [&](int hogSms, const Result& r) {
      double p50 = pct(r.us, 0.5);
      char gbs[32] = "-";
      if (memoryBound) std::snprintf(gbs, sizeof gbs, "%.0f", VICTIM_BYTES / (p50 * 1e3));
      char hog[32] = "-";
      if (hogSms > 0) std::snprintf(hog, sizeof hog, "%.0f", r.hogGBs);
      std::printf("| %s | %d | %.1f | %.1f | %.2f | %s | %s |\n", kind, hogSms, p50, pct(r.us, 0.99), p50 / base,
                  gbs, hog);
    };
    row(0, alone);
    for (const Slice& h : hogs) row(h.sms, measure(victim, memoryBound, &h, samples));
  }
  return 0;
}
