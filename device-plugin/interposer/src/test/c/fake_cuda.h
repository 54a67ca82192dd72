/* What the fake libcuda.so.1 adds for the tests: a description of the context each launch ran in
 * (the thread's last one), e.g. "green(dev1;min8;groups2,3;flags1)" or "primary(dev1)". */
#ifndef SMSLICE_FAKE_CUDA_H
#define SMSLICE_FAKE_CUDA_H

#include "cuda_driver.h"

#define FAKE_STREAM_LEGACY ((CUstream)0x1)
#define FAKE_STREAM_PER_THREAD ((CUstream)0x2)
enum {
  FAKE_ERROR_INVALID_CONTEXT = 201,
  FAKE_ERROR_NOT_FOUND = 500,
  FAKE_ERROR_NOT_READY = 600,
  FAKE_ERROR_NOT_SUPPORTED = 801
};

/* A kernel launched with this gridDimY runs gridDimX microseconds on the fake's timeline. */
#define FAKE_TIMED_Y 4242u

typedef const char *(*fakecuda_last_launch_fn)(void);
typedef const char *(*fakecuda_describe_fn)(CUcontext);
typedef void *(*fakecuda_real_fn)(const char *);

#endif
