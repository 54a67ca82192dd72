/* The few CUDA driver types, constants and entry-point signatures the interposer needs, declared
 * here so that it builds without a CUDA toolkit. Layouts follow the driver ABI (CUDA 12.4+). */
#ifndef SMSLICE_CUDA_DRIVER_H
#define SMSLICE_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUgreenCtx_st *CUgreenCtx;
typedef struct CUdevResourceDesc_st *CUdevResourceDesc;
typedef struct CUfunc_st *CUfunction;
typedef struct CUkern_st *CUkernel;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUevent_st *CUevent;

typedef struct {
  char bytes[16];
} CUuuid;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OPERATING_SYSTEM = 304,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
};

enum { CU_DEV_RESOURCE_TYPE_SM = 1 };
enum { CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16 };
enum { CU_POINTER_ATTRIBUTE_CONTEXT = 1 };
enum { CU_GREEN_CTX_DEFAULT_STREAM = 1 };
enum { CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2 };

/* CUdevResource: 144 bytes; the SM fields start at byte 96. */
typedef struct {
  unsigned int smCount;
  unsigned int minSmPartitionSize;
  unsigned int smCoscheduledAlignment;
} CUdevSmResource;

typedef struct {
  int type;
  unsigned char internal_padding[92];
  union {
    CUdevSmResource sm;
    unsigned char oversize[48];
  };
} CUdevResource;

_Static_assert(sizeof(CUdevResource) == 144, "CUdevResource is 144 bytes in the driver ABI");

/* A kernel node's parameters (v2, and v3 inside CUgraphNodeParams): 72 bytes, ctx last. */
typedef struct {
  CUfunction func;
  unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams;
  void **extra;
  CUkernel kern;
  CUcontext ctx;
} CUDA_KERNEL_NODE_PARAMS_v2;

_Static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v2) == 72, "the driver ABI's kernel node params");

enum { CU_GRAPH_NODE_TYPE_KERNEL = 0 };

/* CUgraphNodeParams: 256 bytes, the node's type first and its parameters at byte 16. */
typedef struct {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    CUDA_KERNEL_NODE_PARAMS_v2 kernel;
  };
  long long reserved2;
} CUgraphNodeParams;

_Static_assert(sizeof(CUgraphNodeParams) == 256, "CUgraphNodeParams is 256 bytes in the driver ABI");

/* cuCtxCreate_v4's parameters: affinity and CIG settings the interposer cannot honour. */
typedef struct {
  void *execAffinityParams;
  int numExecAffinityParams;
  void *cigParams;
} CUctxCreateParams;

typedef CUresult (*cuInit_fn)(unsigned int);
typedef CUresult (*cuGetProcAddress_v1_fn)(const char *, void **, int, uint64_t);
typedef CUresult (*cuGetProcAddress_v2_fn)(const char *, void **, int, uint64_t, int *);
typedef CUresult (*cuDeviceGetCount_fn)(int *);
typedef CUresult (*cuDeviceGet_fn)(CUdevice *, int);
typedef CUresult (*cuDeviceGetUuid_fn)(CUuuid *, CUdevice);
typedef CUresult (*cuDevicePrimaryCtxRetain_fn)(CUcontext *, CUdevice);
typedef CUresult (*cuDevicePrimaryCtxRelease_fn)(CUdevice);
typedef CUresult (*cuDevicePrimaryCtxGetState_fn)(CUdevice, unsigned int *, int *);
typedef CUresult (*cuCtxSetCurrent_fn)(CUcontext);
typedef CUresult (*cuCtxGetCurrent_fn)(CUcontext *);
typedef CUresult (*cuCtxPushCurrent_fn)(CUcontext);
typedef CUresult (*cuCtxPopCurrent_fn)(CUcontext *);
typedef CUresult (*cuCtxDestroy_fn)(CUcontext);
typedef CUresult (*cuCtxCreate_v2_fn)(CUcontext *, unsigned int, CUdevice);
typedef CUresult (*cuCtxCreate_v3_fn)(CUcontext *, void *, int, unsigned int, CUdevice);
typedef CUresult (*cuCtxCreate_v4_fn)(CUcontext *, CUctxCreateParams *, unsigned int, CUdevice);
typedef CUresult (*cuStreamGetCtx_fn)(CUstream, CUcontext *);
typedef CUresult (*cuStreamGetCtx_v2_fn)(CUstream, CUcontext *, CUgreenCtx *);
typedef CUresult (*cuDeviceGetDevResource_fn)(CUdevice, CUdevResource *, int);
typedef CUresult (*cuDevSmResourceSplitByCount_fn)(CUdevResource *, unsigned int *,
                                                   const CUdevResource *, CUdevResource *,
                                                   unsigned int, unsigned int);
typedef CUresult (*cuDevResourceGenerateDesc_fn)(CUdevResourceDesc *, CUdevResource *,
                                                 unsigned int);
typedef CUresult (*cuGreenCtxCreate_fn)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned int);
typedef CUresult (*cuGreenCtxDestroy_fn)(CUgreenCtx);
typedef CUresult (*cuCtxFromGreenCtx_fn)(CUcontext *, CUgreenCtx);
typedef CUresult (*cuGreenCtxGetDevResource_fn)(CUgreenCtx, CUdevResource *, int);
typedef CUresult (*cuCtxGetDevResource_fn)(CUcontext, CUdevResource *, int);
typedef CUresult (*cuDevSmResourceSplit_fn)(CUdevResource *, unsigned int, const CUdevResource *,
                                            CUdevResource *, unsigned int, void *);
typedef CUresult (*cuGraphAddKernelNode_v2_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                               const CUDA_KERNEL_NODE_PARAMS_v2 *);
typedef CUresult (*cuGraphKernelNodeSetParams_v2_fn)(CUgraphNode, const CUDA_KERNEL_NODE_PARAMS_v2 *);
typedef CUresult (*cuGraphExecKernelNodeSetParams_v2_fn)(CUgraphExec, CUgraphNode,
                                                         const CUDA_KERNEL_NODE_PARAMS_v2 *);
typedef CUresult (*cuGraphAddNode_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                      CUgraphNodeParams *);
typedef CUresult (*cuGraphAddNode_v2_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, const void *,
                                         size_t, CUgraphNodeParams *);
typedef CUresult (*cuGraphNodeSetParams_fn)(CUgraphNode, CUgraphNodeParams *);
typedef CUresult (*cuGraphExecNodeSetParams_fn)(CUgraphExec, CUgraphNode, CUgraphNodeParams *);
typedef CUresult (*cuCtxEvent_fn)(CUcontext, CUevent);
typedef CUresult (*cuGraphAddMemNode_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                         const void *, CUcontext);
typedef CUresult (*cuGraphExecMemNodeSetParams_fn)(CUgraphExec, CUgraphNode, const void *,
                                                   CUcontext);
typedef CUresult (*cuMemcpyPeer_fn)(unsigned long long, CUcontext, unsigned long long, CUcontext,
                                    size_t);
typedef CUresult (*cuMemcpyPeerAsync_fn)(unsigned long long, CUcontext, unsigned long long,
                                         CUcontext, size_t, CUstream);
typedef CUresult (*cuDeviceGetAttribute_fn)(int *, int, CUdevice);
typedef CUresult (*cuPointerGetAttribute_fn)(void *, int, unsigned long long);
typedef CUresult (*cuPointerGetAttributes_fn)(unsigned int, int *, void **, unsigned long long);

#endif
