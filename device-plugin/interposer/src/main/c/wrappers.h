/* The driver entry points the interposer defines in place of libcuda's. Only these (and dlsym)
 * leave the library: everything else is hidden, so it cannot clash with a program's symbols. */
#ifndef SMSLICE_WRAPPERS_H
#define SMSLICE_WRAPPERS_H

#include <stdint.h>

#include "cuda_driver.h"

#define EXPORTED __attribute__((visibility("default")))

EXPORTED CUresult cuInit(unsigned int);
EXPORTED CUresult cuGetProcAddress(const char *, void **, int, uint64_t);
EXPORTED CUresult cuGetProcAddress_v2(const char *, void **, int, uint64_t, int *);
EXPORTED CUresult cuDevicePrimaryCtxRetain(CUcontext *, CUdevice);
EXPORTED CUresult cuCtxSetCurrent(CUcontext);
EXPORTED CUresult cuCtxGetCurrent(CUcontext *);
EXPORTED CUresult cuCtxPushCurrent(CUcontext);
EXPORTED CUresult cuCtxPushCurrent_v2(CUcontext);
EXPORTED CUresult cuCtxDestroy(CUcontext);
EXPORTED CUresult cuCtxDestroy_v2(CUcontext);
EXPORTED CUresult cuCtxCreate(CUcontext *, unsigned int, CUdevice);
EXPORTED CUresult cuCtxCreate_v2(CUcontext *, unsigned int, CUdevice);
EXPORTED CUresult cuCtxCreate_v3(CUcontext *, void *, int, unsigned int, CUdevice);
EXPORTED CUresult cuCtxCreate_v4(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);
EXPORTED CUresult cuGreenCtxCreate(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned int);
EXPORTED CUresult cuStreamGetCtx(CUstream, CUcontext *);
EXPORTED CUresult cuStreamGetCtx_ptsz(CUstream, CUcontext *);
EXPORTED CUresult cuStreamGetCtx_v2(CUstream, CUcontext *, CUgreenCtx *);
EXPORTED CUresult cuStreamGetCtx_v2_ptsz(CUstream, CUcontext *, CUgreenCtx *);
EXPORTED CUresult cuCtxPopCurrent(CUcontext *);
EXPORTED CUresult cuCtxPopCurrent_v2(CUcontext *);
EXPORTED CUresult cuPointerGetAttribute(void *, int, unsigned long long);
EXPORTED CUresult cuPointerGetAttributes(unsigned int, int *, void **, unsigned long long);
EXPORTED CUresult cuDeviceGetAttribute(int *, int, CUdevice);
EXPORTED CUresult cuGLCtxCreate(CUcontext *, unsigned int, CUdevice);
EXPORTED CUresult cuGLCtxCreate_v2(CUcontext *, unsigned int, CUdevice);
EXPORTED CUresult cuVDPAUCtxCreate(CUcontext *, unsigned int, CUdevice, void *, void *);
EXPORTED CUresult cuVDPAUCtxCreate_v2(CUcontext *, unsigned int, CUdevice, void *, void *);
EXPORTED CUresult cuDeviceGetDevResource(CUdevice, CUdevResource *, int);
EXPORTED CUresult cuCtxGetDevResource(CUcontext, CUdevResource *, int);
EXPORTED CUresult cuGreenCtxGetDevResource(CUgreenCtx, CUdevResource *, int);
EXPORTED CUresult cuDevSmResourceSplitByCount(CUdevResource *, unsigned int *, const CUdevResource *,
                                              CUdevResource *, unsigned int, unsigned int);
EXPORTED CUresult cuDevSmResourceSplit(CUdevResource *, unsigned int, const CUdevResource *,
                                       CUdevResource *, unsigned int, void *);
EXPORTED CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *, CUdevResource *, unsigned int);
EXPORTED CUresult cuGreenCtxDestroy(CUgreenCtx);
EXPORTED CUresult cuGraphAddKernelNode_v2(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                          const CUDA_KERNEL_NODE_PARAMS_v2 *);
EXPORTED CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v2 *);
EXPORTED CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec, CUgraphNode,
                                                    const CUDA_KERNEL_NODE_PARAMS_v2 *);
EXPORTED CUresult cuGraphAddNode(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                 CUgraphNodeParams *);
EXPORTED CUresult cuGraphAddNode_v2(CUgraphNode *, CUgraph, const CUgraphNode *, const void *,
                                    size_t, CUgraphNodeParams *);
EXPORTED CUresult cuGraphNodeSetParams(CUgraphNode, CUgraphNodeParams *);
EXPORTED CUresult cuGraphExecNodeSetParams(CUgraphExec, CUgraphNode, CUgraphNodeParams *);
EXPORTED CUresult cuCtxRecordEvent(CUcontext, CUevent);
EXPORTED CUresult cuCtxWaitEvent(CUcontext, CUevent);
EXPORTED CUresult cuGraphAddMemsetNode(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                       const void *, CUcontext);
EXPORTED CUresult cuGraphAddMemcpyNode(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                       const void *, CUcontext);
EXPORTED CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec, CUgraphNode, const void *, CUcontext);
EXPORTED CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec, CUgraphNode, const void *, CUcontext);
EXPORTED CUresult cuMemcpyPeer(unsigned long long, CUcontext, unsigned long long, CUcontext, size_t);
EXPORTED CUresult cuMemcpyPeer_ptds(unsigned long long, CUcontext, unsigned long long, CUcontext,
                                    size_t);
EXPORTED CUresult cuMemcpyPeerAsync(unsigned long long, CUcontext, unsigned long long, CUcontext,
                                    size_t, CUstream);
EXPORTED CUresult cuMemcpyPeerAsync_ptsz(unsigned long long, CUcontext, unsigned long long,
                                         CUcontext, size_t, CUstream);

#endif
