// Whether one process's streams sitting in cuStreamWaitValue32 waits slow another process's work
// on the same GPU: the question the stream gate's ensemble run left open (were a latency-critical
// tenant's work queued behind a best-effort stream's closed wait, it would wait for the gate).
// Two processes, each in its own green context of one split (16 SMs and the other 116):
//   gate_neighbour_probe victim DIR    a graph of 40 kernels of 25 us on 16 SMs, replayed every
//                                      2 ms, timed by CUDA events (GPU) and by the host from
//                                      launch to completion, in phases the blocker sets up
//   gate_neighbour_probe blocker DIR   in each phase: nothing; 1, 16 or 64 streams each held in a
//                                      closed wait; one stream of 20 us kernels on its 116 SMs
//                                      without waits; the same with a wait per 4 kernels and a
//                                      host thread closing and opening the word every 300 us
// The two meet through files in DIR (phase-N-ready, phase-N-done). The kernels spin on the
// global timer, so neither process's kernels slow the other's SMs: what moves is the front end.
#include <cuda.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate_probe.h"

__global__ void spin(long long ns) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

static const char *phases[] = {"alone",
                               "1 stream held in a closed wait",
                               "16 streams held in closed waits",
                               "64 streams held in closed waits",
                               "1 stream of 20 us kernels, no waits",
                               "the same, a wait per 4 kernels, word closed/open every 300 us",
                               "alone again"};
#define PHASES (int)(sizeof phases / sizeof phases[0])

static double now_us() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static char dir[512];

static void touch(const char *what, int phase) {
  char path[600];
  snprintf(path, sizeof path, "%s/phase-%d-%s", dir, phase, what);
  FILE *f = fopen(path, "w");
  if (f != NULL) fclose(f);
}

static int await_file(const char *what, int phase, double timeout_s) {
  char path[600];
  snprintf(path, sizeof path, "%s/phase-%d-%s", dir, phase, what);
  for (double waited = 0; waited < timeout_s * 1e6; waited += 500) {
    if (access(path, F_OK) == 0) return 1;
    usleep(500);
  }
  return 0;
}

static CUdevice dev;
static CUfunction spin_fn;

/* A green context of the split's 16-SM part (victim) or the rest (blocker), made current. */
static CUgreenCtx slice(int victim, unsigned *sms) {
  CUgreenCtx green;
  CHECK(green_split(dev, 16, !victim, &green, sms));
  CUmodule mod;
  CHECK(cuModuleLoad(&mod, "gate_neighbour_probe.cubin"));
  CHECK(cuModuleGetFunction(&spin_fn, mod, "_Z4spinx"));
  return green;
}

static void launch(CUstream s, long long ns, unsigned blocks) {
  void *args[] = {&ns};
  CHECK(cuLaunchKernel(spin_fn, blocks, 1, 1, 32, 1, 1, 0, s, args, NULL));
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *label, double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  printf("  %s p50 %.1f p99 %.1f max %.1f us\n", label, v[n / 2], v[n * 99 / 100], v[n - 1]);
}

#define REPLAYS 1000

static int victim(void) {
  unsigned sms;
  CUgreenCtx green = slice(1, &sms);
  CUstream s;
  CHECK(cuGreenCtxStreamCreate(&s, green, CU_STREAM_NON_BLOCKING, 0));
  CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  for (int k = 0; k < 40; k++) launch(s, 25000, sms);
  CUgraph graph;
  CHECK(cuStreamEndCapture(s, &graph));
  CUgraphExec exec;
  CHECK(cuGraphInstantiate(&exec, graph, 0));
  CUevent a, b;
  CHECK(cuEventCreate(&a, 0));
  CHECK(cuEventCreate(&b, 0));
  static double gpu[REPLAYS], host[REPLAYS];
  printf("victim: %u SMs, a graph of 40 x 25 us kernels every 2 ms, %d replays per phase\n", sms,
         REPLAYS);
  for (int p = 0; p < PHASES; p++) {
    if (!await_file("ready", p, 60)) {
      printf("phase %d: the blocker never got ready\n", p);
      return 1;
    }
    int stuck = 0;
    double next = now_us();
    for (int i = 0; i < REPLAYS; i++) {
      while (now_us() < next) {
      }
      next += 2000;
      double began = now_us();
      CHECK(cuEventRecord(a, s));
      CHECK(cuGraphLaunch(exec, s));
      CHECK(cuEventRecord(b, s));
      CUresult q;
      while ((q = cuEventQuery(b)) == CUDA_ERROR_NOT_READY && now_us() - began < 2e6) {
      }
      if (q == CUDA_ERROR_NOT_READY) {
        /* Held behind the other process's wait: let the blocker open it and see when it ends. */
        touch("done", p);
        CHECK(cuEventSynchronize(b));
        printf("phase %d (%s): STUCK, the replay ended %.0f us after launch, once the blocker"
               " opened its word\n", p, phases[p], now_us() - began);
        stuck = 1;
        break;
      }
      host[i] = now_us() - began;
      float ms;
      CHECK(cuEventElapsedTime(&ms, a, b));
      gpu[i] = ms * 1000;
    }
    if (!stuck) {
      printf("phase %d: %s\n", p, phases[p]);
      report("GPU-timed replay", gpu, REPLAYS);
      report("host launch to completion", host, REPLAYS);
      touch("done", p);
    }
    fflush(stdout);
  }
  return 0;
}

static volatile unsigned *word;
static volatile int flipping;

static void *flip(void *unused) {
  (void)unused;
  while (flipping) {
    *word = 1; /* closed */
    __sync_synchronize();
    double t = now_us();
    while (now_us() - t < 300) {
    }
    *word = 0;
    __sync_synchronize();
    t = now_us();
    while (now_us() - t < 300) {
    }
  }
  *word = 0;
  return NULL;
}

static int blocker(void) {
  unsigned sms;
  CUgreenCtx green = slice(0, &sms);
  void *host;
  CHECK(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
  CUdeviceptr word_dev;
  CHECK(cuMemHostGetDevicePointer(&word_dev, host, 0));
  word = (volatile unsigned *)host;
  static CUstream streams[64];
  for (int i = 0; i < 64; i++)
    CHECK(cuGreenCtxStreamCreate(&streams[i], green, CU_STREAM_NON_BLOCKING, 0));
  CUevent queued[64];
  for (int i = 0; i < 64; i++) CHECK(cuEventCreate(&queued[i], CU_EVENT_DISABLE_TIMING));
  printf("blocker: %u SMs\n", sms);
  for (int p = 0; p < PHASES; p++) {
    int held = p == 1 ? 1 : p == 2 ? 16 : p == 3 ? 64 : 0;
    *word = held ? 1 : 0;
    __sync_synchronize();
    for (int i = 0; i < held; i++) {
      CHECK(cuStreamWaitValue32(streams[i], word_dev, 0, CU_STREAM_WAIT_VALUE_EQ));
      launch(streams[i], 1000, 1);
    }
    pthread_t flipper;
    if (p == 5) {
      flipping = 1;
      pthread_create(&flipper, NULL, flip, NULL);
    }
    touch("ready", p);
    if (p == 4 || p == 5) {
      /* Keep about 64 kernels queued (8 events of 8) until the victim is done. */
      unsigned long n = 0;
      int ring = 0;
      char path[600];
      snprintf(path, sizeof path, "%s/phase-%d-done", dir, p);
      while (access(path, F_OK) != 0) {
        CHECK(cuEventSynchronize(queued[ring]));
        for (int k = 0; k < 8; k++, n++) {
          if (p == 5 && n % 4 == 0)
            CHECK(cuStreamWaitValue32(streams[0], word_dev, 0, CU_STREAM_WAIT_VALUE_EQ));
          launch(streams[0], 20000, sms);
        }
        CHECK(cuEventRecord(queued[ring], streams[0]));
        ring = (ring + 1) % 8;
      }
      printf("phase %d: the blocker queued %lu kernels\n", p, n);
    } else if (!await_file("done", p, 120)) {
      printf("phase %d: the victim never finished\n", p);
    }
    if (p == 5) {
      flipping = 0;
      pthread_join(flipper, NULL);
    }
    *word = 0;
    __sync_synchronize();
    for (int i = 0; i < 64; i++) CHECK(cuStreamSynchronize(streams[i]));
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: gate_neighbour_probe victim|blocker DIR\n");
    return 2;
  }
  snprintf(dir, sizeof dir, "%s", argv[2]);
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  return strcmp(argv[1], "victim") == 0 ? victim() : blocker();
}
