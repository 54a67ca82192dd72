/* A tenant of the interference-guard tests, linked with -lcuda like linked_like. It launches
 * kernels of a given length on the fake's timeline and prints, for each, when its launch call
 * began and returned (CLOCK_MONOTONIC ns), so a test sees how long the guard held it, and at the
 * end how many events and stream waits were queued and when each kernel ran on the fake's
 * timeline (a hold on the GPU shows there, not in the launch calls). With several threads each launches count kernels at once,
 * as a training loop's main and autograd threads do. With a late frame it launches on a fixed
 * schedule instead, one kernel every gap us from the first, that one late us after its time, as a
 * periodic inference whose host loop is late once.
 *   guard_like <count> <kernel us> <gap us> [<threads> [<late frame> <late us>]] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fake_cuda.h"

CUresult cuInit(unsigned int);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuEventCreate(CUevent *, unsigned int);
CUresult cuEventRecord(CUevent, CUstream);
CUresult cuEventSynchronize(CUevent);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
int fakecuda_events_recorded(void);
int fakecuda_stream_waits(void);
int fakecuda_kernel_spans(long long (*out)[2], int max);

static int count;
static unsigned kernel_us;
static long gap_us;
static int late_frame = -1;
static long late_us;
static CUcontext primary;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *launch_all(void *failed) {
  if (cuCtxSetCurrent(primary) != 0) {
    *(int *)failed = 1;
    return NULL;
  }
  long long first = now_ns();
  for (int i = 0; i < count; i++) {
    if (late_frame >= 0) {
      long long at = first + (long long)i * gap_us * 1000 + (i == late_frame ? late_us * 1000 : 0);
      struct timespec t = {at / 1000000000LL, at % 1000000000LL};
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
    }
    long long start = now_ns();
    CUresult r = cuLaunchKernel(NULL, kernel_us, FAKE_TIMED_Y, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    printf("launch %d %d %lld %lld\n", i, r, start, now_ns());
    fflush(stdout);
    if (late_frame < 0 && gap_us > 0) {
      struct timespec t = {gap_us / 1000000, (gap_us % 1000000) * 1000};
      nanosleep(&t, NULL);
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  count = atoi(argv[1]);
  kernel_us = (unsigned)atoi(argv[2]);
  gap_us = atol(argv[3]);
  int threads = argc > 4 ? atoi(argv[4]) : 1;
  if (threads < 1 || threads > 16) return 2;
  if (argc > 6) late_frame = atoi(argv[5]), late_us = atol(argv[6]);
  CUdevice dev;
  int failed[16] = {0};
  if (cuInit(0) != 0 || cuDeviceGet(&dev, 1) != 0 || cuDevicePrimaryCtxRetain(&primary, dev) != 0 ||
      cuCtxSetCurrent(primary) != 0) {
    printf("setup failed\n");
    return 1;
  }
  printf("ready %lld\n", now_ns());
  fflush(stdout);
  pthread_t others[16];
  for (int t = 1; t < threads; t++) pthread_create(&others[t], NULL, launch_all, &failed[t]);
  launch_all(&failed[0]);
  for (int t = 1; t < threads; t++) pthread_join(others[t], NULL);
  for (int t = 0; t < threads; t++) {
    if (failed[t]) {
      printf("setup failed\n");
      return 1;
    }
  }
  /* Every kernel has run once the last one's launch returned and a synchronize ends. */
  CUevent last;
  if (cuEventCreate(&last, 0) != 0 || cuEventRecord(last, NULL) != 0 || cuEventSynchronize(last) != 0) {
    printf("setup failed\n");
    return 1;
  }
  printf("events %d\n", fakecuda_events_recorded()); /* the fake's, the guard's among them */
  printf("waits %d\n", fakecuda_stream_waits());
  static long long spans[4096][2];
  int n = fakecuda_kernel_spans(spans, 4096);
  for (int i = 0; i < n; i++) printf("ran %d %lld %lld\n", i, spans[i][0], spans[i][1]);
  printf("done %lld\n", now_ns());
  return 0;
}
