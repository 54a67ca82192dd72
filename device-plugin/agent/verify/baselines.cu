// Why smslice uses green contexts: a latency-critical victim's kernel latency beside a full-GPU
// aggressor in one process, with plain streams, stream priorities and green contexts. Runs on the
// driver API alone, next to the agent's verification (run-baselines-on-gpu.sh builds and runs it):
//   nvcc -O2 -o baselines baselines.cu -lcuda && ./baselines kernels.ptx
// Victim: 16 blocks x 256 threads spinning ~140 us; aggressor: 1056 blocks x 256 threads spinning
// ~10 ms, two launches in flight, on its own host thread and stream.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
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

// A place to launch the spin kernel: a context (plain or green) with its module and a stream.
struct Lane {
  CUcontext ctx;
  CUfunction spin;
  CUstream stream;
};

static Lane lane(CUcontext ctx, const std::string& ptx, CUstream stream) {
  Lane l{ctx, nullptr, stream};
  CK(cuCtxSetCurrent(ctx));
  CUmodule module;
  CK(cuModuleLoadData(&module, ptx.c_str()));
  CK(cuModuleGetFunction(&l.spin, module, "spin"));
  return l;
}

static void launch(const Lane& l, unsigned blocks, long long cycles) {
  void* args[] = {&cycles};
  CK(cuLaunchKernel(l.spin, blocks, 1, 1, 256, 1, 1, 0, l.stream, args, nullptr));
}

static const long long VICTIM_CYCLES = 250000;
static const long long AGGRESSOR_CYCLES = 20000000;

// Victim launch+sync latencies in microseconds (after a warm-up), with an optional aggressor.
static std::vector<double> measure(const Lane& victim, const Lane* aggressor, int samples) {
  std::atomic<bool> stop{false};
  std::thread load;
  if (aggressor) {
    load = std::thread([&] {
      CK(cuCtxSetCurrent(aggressor->ctx));
      while (!stop.load()) {
        launch(*aggressor, 1056, AGGRESSOR_CYCLES);
        launch(*aggressor, 1056, AGGRESSOR_CYCLES);
        CK(cuStreamSynchronize(aggressor->stream));
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CK(cuCtxSetCurrent(victim.ctx));
  std::vector<double> us;
  for (int i = 0; i < samples + 200; i++) {
    auto t0 = std::chrono::steady_clock::now();
    launch(victim, 16, VICTIM_CYCLES);
    CK(cuStreamSynchronize(victim.stream));
    auto t1 = std::chrono::steady_clock::now();
    if (i >= 200) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  stop = true;
  if (aggressor) load.join();
  std::sort(us.begin(), us.end());
  return us;
}

static double pct(const std::vector<double>& v, double p) {
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: baselines kernels.ptx [samples]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  std::string ptx = text.str();
  int samples = argc > 2 ? std::atoi(argv[2]) : 2000;

  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  char name[256];
  CK(cuDeviceGetName(name, sizeof name, dev));
  int driver;
  CK(cuDriverGetVersion(&driver));

  CUcontext primary;
  CK(cuDevicePrimaryCtxRetain(&primary, dev));
  CK(cuCtxSetCurrent(primary));
  int leastPriority, greatestPriority;
  CK(cuCtxGetStreamPriorityRange(&leastPriority, &greatestPriority));
  CUstream plainVictim, plainAggressor, highVictim, lowAggressor;
  CK(cuStreamCreate(&plainVictim, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreate(&plainAggressor, CU_STREAM_NON_BLOCKING));
  CK(cuStreamCreateWithPriority(&highVictim, CU_STREAM_NON_BLOCKING, greatestPriority));
  CK(cuStreamCreateWithPriority(&lowAggressor, CU_STREAM_NON_BLOCKING, leastPriority));

  // One split into the smallest groups; the victim gets two groups, the aggressor the rest.
  CUdevResource sm;
  CK(cuDeviceGetDevResource(dev, &sm, CU_DEV_RESOURCE_TYPE_SM));
  unsigned groups = 0;
  CUdevResource remaining;
  CK(cuDevSmResourceSplitByCount(nullptr, &groups, &sm, &remaining, 0, 1));
  std::vector<CUdevResource> split(groups);
  CK(cuDevSmResourceSplitByCount(split.data(), &groups, &sm, &remaining, 0, 1));
  std::vector<CUdevResource> victimGroups(split.begin(), split.begin() + 2);
  std::vector<CUdevResource> aggressorGroups(split.begin() + 2, split.end());
  aggressorGroups.push_back(remaining);
  auto green = [&](std::vector<CUdevResource>& parts, int* sms) {
    CUdevResourceDesc desc;
    CK(cuDevResourceGenerateDesc(&desc, parts.data(), parts.size()));
    CUgreenCtx g;
    CK(cuGreenCtxCreate(&g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    *sms = 0;
    for (auto& p : parts) *sms += p.sm.smCount;
    return g;
  };
  int victimSms, aggressorSms;
  CUgreenCtx victimGreen = green(victimGroups, &victimSms);
  CUgreenCtx aggressorGreen = green(aggressorGroups, &aggressorSms);
  CUcontext victimCtx, aggressorCtx;
  CK(cuCtxFromGreenCtx(&victimCtx, victimGreen));
  CK(cuCtxFromGreenCtx(&aggressorCtx, aggressorGreen));
  CUstream greenVictimStream, greenAggressorStream;
  CK(cuGreenCtxStreamCreate(&greenVictimStream, victimGreen, CU_STREAM_NON_BLOCKING, 0));
  CK(cuGreenCtxStreamCreate(&greenAggressorStream, aggressorGreen, CU_STREAM_NON_BLOCKING, 0));

  Lane pv = lane(primary, ptx, plainVictim), pa = lane(primary, ptx, plainAggressor);
  Lane hv = lane(primary, ptx, highVictim), la = lane(primary, ptx, lowAggressor);
  Lane gv = lane(victimCtx, ptx, greenVictimStream), ga = lane(aggressorCtx, ptx, greenAggressorStream);

  std::printf("# Victim latency beside a full-GPU aggressor, one process\n\n");
  std::printf("GPU: %s, driver API %d, %u groups + remainder of %u SMs; victim %d SMs, aggressor %d SMs\n",
              name, driver, groups, remaining.sm.smCount, victimSms, aggressorSms);
  std::printf("Victim: 16 x 256 threads, %lld cycles; aggressor: 1056 x 256 threads, %lld cycles, 2 in flight; %d samples\n\n",
              VICTIM_CYCLES, AGGRESSOR_CYCLES, samples);
  std::printf("| setup | victim p50 us | victim p99 us | p99 / alone on its lane |\n|---|---|---|---|\n");
  auto alonePlain = measure(pv, nullptr, samples);
  auto aloneGreen = measure(gv, nullptr, samples);
  struct Row { const char* setup; std::vector<double> v; double alone; };
  std::vector<Row> rows = {
      {"victim alone, plain stream (all SMs)", alonePlain, pct(alonePlain, 0.99)},
      {"victim alone, green context", aloneGreen, pct(aloneGreen, 0.99)},
      {"+ aggressor, both plain streams", measure(pv, &pa, samples), pct(alonePlain, 0.99)},
      {"+ aggressor, victim high / aggressor low stream priority", measure(hv, &la, samples), pct(alonePlain, 0.99)},
      {"+ aggressor, victim green / aggressor plain (all SMs)", measure(gv, &pa, samples), pct(aloneGreen, 0.99)},
      {"+ aggressor, both in green contexts (disjoint SMs)", measure(gv, &ga, samples), pct(aloneGreen, 0.99)},
  };
  for (auto& r : rows) {
    std::printf("| %s | %.1f | %.1f | %.2f |\n", r.setup, pct(r.v, 0.5), pct(r.v, 0.99), pct(r.v, 0.99) / r.alone);
  }
  return 0;
}
