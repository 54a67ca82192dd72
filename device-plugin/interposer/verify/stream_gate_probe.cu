// Whether a best-effort stream can be held on the GPU rather than on the launching thread: a
// cuStreamWaitValue32 on a word of mapped host memory before its launches, the word written by a
// host thread. Measures, in a primary and a 16-SM green context: the cost of the waits while the
// word lets work pass (GPU time of 4000 short kernels, none / one wait per kernel / per 16, and
// the host time to queue them), that a
// closed word holds the stream, how soon work goes on once it opens, and how many kernels still
// start after it closes. Run with and without an MPS daemon.  stream_gate_probe [label]
#include <cuda.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "gate_probe.h"

__global__ void spin(long long ns, unsigned *counter) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (counter != NULL && threadIdx.x == 0 && blockIdx.x == 0) {
    *(volatile unsigned *)counter += 1; /* kernels of one stream run one after another */
    __threadfence_system();
  }
}

static double now_us() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static CUfunction spin_fn;

static int launch(CUstream s, long long ns, unsigned *counter_dev) {
  void *args[] = {&ns, &counter_dev};
  CHECK(cuLaunchKernel(spin_fn, 8, 1, 1, 128, 1, 1, 0, s, args, NULL));
  return 0;
}

static int measure(const char *where, CUstream s, CUdeviceptr gate_dev, volatile unsigned *gate,
                   volatile unsigned *counter, unsigned *counter_dev) {
  CUevent a, b;
  CHECK(cuEventCreate(&a, 0));
  CHECK(cuEventCreate(&b, 0));
  *gate = 0;
  int everies[] = {0, 1, 16};
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < 3; k++) {
      int every = everies[k];
      CHECK(cuEventRecord(a, s));
      double began = now_us();
      for (int i = 0; i < 4000; i++) {
        if (every > 0 && i % every == 0)
          CHECK(cuStreamWaitValue32(s, gate_dev, 0, CU_STREAM_WAIT_VALUE_EQ));
        if (launch(s, 5000, NULL)) return 1;
      }
      double queued = now_us() - began;
      CHECK(cuEventRecord(b, s));
      CHECK(cuEventSynchronize(b));
      float ms;
      CHECK(cuEventElapsedTime(&ms, a, b));
      printf("%s round %d: waits every %d kernels: %.3f us GPU time per 5 us kernel, %.2f us"
             " host time to queue each\n", where, round, every, ms * 1000 / 4000, queued / 4000);
    }
  }
  // A closed word holds the stream; opening it lets the work go on.
  *gate = 1;
  __sync_synchronize();
  CHECK(cuStreamWaitValue32(s, gate_dev, 0, CU_STREAM_WAIT_VALUE_EQ));
  if (launch(s, 1000, NULL)) return 1;
  CHECK(cuEventRecord(b, s));
  usleep(20000);
  CUresult held = cuEventQuery(b);
  double opened = now_us();
  *gate = 0;
  __sync_synchronize();
  while (cuEventQuery(b) == CUDA_ERROR_NOT_READY) {
  }
  printf("%s: closed 20 ms, work %s; done %.1f us after the word opened (1 us kernel)\n", where,
         held == CUDA_ERROR_NOT_READY ? "held" : "NOT held", now_us() - opened);
  // Closing the word while a queue of waits and 20 us kernels runs: how many still start.
  *counter = 0;
  for (int i = 0; i < 2000; i++) {
    CHECK(cuStreamWaitValue32(s, gate_dev, 0, CU_STREAM_WAIT_VALUE_EQ));
    if (launch(s, 20000, counter_dev)) return 1;
  }
  CHECK(cuEventRecord(b, s));
  usleep(5000);
  *gate = 1;
  __sync_synchronize();
  unsigned at_close = *counter;
  usleep(5000);
  unsigned later = *counter;
  usleep(20000);
  unsigned much_later = *counter;
  *gate = 0;
  __sync_synchronize();
  CHECK(cuEventSynchronize(b));
  printf("%s: kernels done at close %u, 5 ms later %u, 25 ms later %u, at the end %u\n", where,
         at_close, later, much_later, *counter);
  return 0;
}

int main(int argc, char **argv) {
  const char *label = argc > 1 ? argv[1] : "";
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext primary;
  CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
  CHECK(cuCtxSetCurrent(primary));
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, "stream_gate_probe.cubin"));
  CHECK(cuModuleGetFunction(&spin_fn, mod, "_Z4spinxPj"));
  void *host;
  CHECK(cuMemHostAlloc(&host, 4096, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  CUdeviceptr host_dev;
  CHECK(cuMemHostGetDevicePointer(&host_dev, host, 0));
  volatile unsigned *gate = (volatile unsigned *)host;
  volatile unsigned *counter = gate + 16;
  CUstream s;
  CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  char where[128];
  snprintf(where, sizeof where, "%s primary", label);
  if (measure(where, s, host_dev, gate, counter, (unsigned *)(host_dev + 64))) return 1;

  CUgreenCtx green;
  unsigned sms;
  CHECK(green_split(dev, 16, 0, &green, &sms));
  CUmodule gmod;
  CHECK(cuModuleLoad(&gmod, "stream_gate_probe.cubin"));
  CHECK(cuModuleGetFunction(&spin_fn, gmod, "_Z4spinxPj"));
  CUstream gs;
  CHECK(cuGreenCtxStreamCreate(&gs, green, CU_STREAM_NON_BLOCKING, 0));
  snprintf(where, sizeof where, "%s green 16 SMs (%u)", label, sms);
  if (measure(where, gs, host_dev, gate, counter, (unsigned *)(host_dev + 64))) return 1;
  return 0;
}
