/* A tenant of the interference-guard tests, linked with -lcuda like linked_like. It launches
 * kernels of a given length on the fake's timeline and prints, for each, when its launch call
 * began and returned (CLOCK_MONOTONIC ns), so a test sees how long the guard held it, and at the
 * end how many events were recorded.
 *   guard_like <count> <kernel us> <gap us> [<stream-sync at end: 0|1>] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fake_cuda.h"

CUresult cuInit(unsigned int);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, CUstream, void **, void **);
int fakecuda_events_recorded(void);

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) return 2;
  int count = atoi(argv[1]);
  unsigned kernel_us = (unsigned)atoi(argv[2]);
  long gap_us = atol(argv[3]);
  CUdevice dev;
  CUcontext primary;
  if (cuInit(0) != 0 || cuDeviceGet(&dev, 1) != 0 || cuDevicePrimaryCtxRetain(&primary, dev) != 0 ||
      cuCtxSetCurrent(primary) != 0) {
    printf("setup failed\n");
    return 1;
  }
  printf("ready %lld\n", now_ns());
  fflush(stdout);
  for (int i = 0; i < count; i++) {
    long long start = now_ns();
    CUresult r = cuLaunchKernel(NULL, kernel_us, FAKE_TIMED_Y, 1, 1, 1, 1, 0, NULL, NULL, NULL);
    printf("launch %d %d %lld %lld\n", i, r, start, now_ns());
    fflush(stdout);
    if (gap_us > 0) {
      struct timespec t = {gap_us / 1000000, (gap_us % 1000000) * 1000};
      nanosleep(&t, NULL);
    }
  }
  printf("events %d\n", fakecuda_events_recorded()); /* the fake's, the guard's among them */
  printf("done %lld\n", now_ns());
  return 0;
}
