/* The interference guard (docs/interference-guard.md): on a GPU whose file SMSLICE_GUARD names, a
 * latency-critical process (SMSLICE_PRIORITY=LatencyCritical) publishes while it has work in
 * flight; a best-effort one (BestEffort) holds its work meanwhile, at most the file's hold and
 * share limits. It holds on the GPU where the driver has stream waits: a wait ahead of each bound's
 * worth of launches on every stream, for a word its gate thread closes, so its program runs ahead
 * as far as it likes and a hold stops its streams after at most a bound of their work. Else it
 * holds each new launch or copy on the launching thread and keeps few of its launches in flight.
 * Other processes, and every process while the agent has the guard off, pass. */
#ifndef SMSLICE_GUARD_H
#define SMSLICE_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_driver.h"
#include "wrappers.h"

typedef unsigned long long CUdeviceptr;
/* cuLaunchKernelEx's configuration, as the driver lays it out. */
typedef struct CUlaunchConfig_st {
  unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  void *attrs;
  unsigned int numAttrs;
} CUlaunchConfig;

/* The guarded launch and copy entry points (their hooks are listed in lookup.c). */
EXPORTED CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, CUstream, void **, void **);
EXPORTED CUresult cuLaunchKernel_ptsz(CUfunction, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, CUstream, void **, void **);
EXPORTED CUresult cuLaunchKernelEx(const CUlaunchConfig *, CUfunction, void **, void **);
EXPORTED CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *, CUfunction, void **, void **);
EXPORTED CUresult cuGraphLaunch(CUgraphExec, CUstream);
EXPORTED CUresult cuGraphLaunch_ptsz(CUgraphExec, CUstream);
EXPORTED CUresult cuMemcpyAsync(CUdeviceptr, CUdeviceptr, size_t, CUstream);
EXPORTED CUresult cuMemcpyAsync_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);
EXPORTED CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr, const void *, size_t, CUstream);
EXPORTED CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr, const void *, size_t, CUstream);
EXPORTED CUresult cuMemcpyDtoHAsync_v2(void *, CUdeviceptr, size_t, CUstream);
EXPORTED CUresult cuMemcpyDtoHAsync_v2_ptsz(void *, CUdeviceptr, size_t, CUstream);
EXPORTED CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr, CUdeviceptr, size_t, CUstream);
EXPORTED CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr, CUdeviceptr, size_t, CUstream);

/* What guard_before decided for one launch, handed to guard_after. */
typedef struct {
  int track;
} guard_ticket;

/* Before a launch on stream (per_thread: NULL is the thread's own stream): a best-effort process
 * queues its gate's wait on the stream, or, holding on the thread, waits here (bounded). */
guard_ticket guard_before(CUstream stream, int per_thread);

/* After it: a tracked launch that succeeded is followed by an event whose completion ends it. */
void guard_after(guard_ticket ticket, CUstream stream, CUresult launched);

#endif
