/* Calls that name the context their work runs in. The program holds the primary context's handle
 * (slice_public shows it that one), so each such context is confined as a context made current
 * is: the claim device's primary becomes the slice's context, one the library cannot confine is
 * refused. Graph kernel nodes, above all: a node naming the primary context would run on the
 * whole GPU; memset and memcpy nodes and peer copies too (fills and copies may run as kernels). */
#include <stddef.h>
#include <string.h>

#include "cuda_driver.h"
#include "hooks.h"
#include "slice.h"
#include "wrappers.h"

static CUresult confine(CUcontext *ctx, const char *what) {
  if (*ctx == NULL) return CUDA_SUCCESS;
  switch (slice_classify(*ctx)) {
    case CTX_PASS: return CUDA_SUCCESS;
    case CTX_SWAP: return slice_context(ctx);
    default: return slice_refuse(what);
  }
}

/* A copy of kernel node parameters with their context confined. */
static CUresult kernel_params(const CUDA_KERNEL_NODE_PARAMS_v2 *in, CUDA_KERNEL_NODE_PARAMS_v2 *out) {
  if (in == NULL) return CUDA_ERROR_INVALID_VALUE;
  *out = *in;
  return confine(&out->ctx, "a graph kernel node in a context outside the claim's slice");
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                                 size_t ndeps, const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  CUresult r = kernel_params(params, &p);
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphAddKernelNode_v2_fn, H_GRAPH_ADD_KERNEL_NODE_V2, 
                                 node, graph, deps, ndeps, &p);
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  CUresult r = kernel_params(params, &p);
  return r != CUDA_SUCCESS
             ? r
             : CALL_REAL(cuGraphKernelNodeSetParams_v2_fn, H_GRAPH_KERNEL_NODE_SET_PARAMS_V2, node, &p);
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node,
                                           const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  CUresult r = kernel_params(params, &p);
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphExecKernelNodeSetParams_v2_fn, H_GRAPH_EXEC_KERNEL_NODE_SET_PARAMS_V2, exec, node, &p);
}

/* The generic node parameters: only a kernel node's context is changed (a copy is passed). */
static CUresult node_params(CUgraphNodeParams *in, CUgraphNodeParams *copy,
                            CUgraphNodeParams **use) {
  *use = in;
  if (in == NULL || in->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_SUCCESS;
  *copy = *in;
  *use = copy;
  return confine(&copy->kernel.ctx, "a graph kernel node in a context outside the claim's slice");
}

CUresult cuGraphAddNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps, size_t ndeps,
                        CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS
             ? r
             : CALL_REAL(cuGraphAddNode_fn, H_GRAPH_ADD_NODE, node, graph, deps, ndeps, use);
}

CUresult cuGraphAddNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                           const void *edges, size_t ndeps, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS
             ? r
             : CALL_REAL(cuGraphAddNode_v2_fn, H_GRAPH_ADD_NODE_V2, node, graph, deps, edges, ndeps,
                                                                use);
}

CUresult cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS ? r : CALL_REAL(cuGraphNodeSetParams_fn, H_GRAPH_NODE_SET_PARAMS, node, use);
}

CUresult cuGraphExecNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS
             ? r
             : CALL_REAL(cuGraphExecNodeSetParams_fn, H_GRAPH_EXEC_NODE_SET_PARAMS, exec, node, use);
}

/* An event of all the work of a context: the slice's, not the idle primary context's. */
CUresult cuCtxRecordEvent(CUcontext ctx, CUevent event) {
  CUresult r = confine(&ctx, "cuCtxRecordEvent on a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : CALL_REAL(cuCtxEvent_fn, H_CTX_RECORD_EVENT, ctx, event);
}

CUresult cuCtxWaitEvent(CUcontext ctx, CUevent event) {
  CUresult r = confine(&ctx, "cuCtxWaitEvent on a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : CALL_REAL(cuCtxEvent_fn, H_CTX_WAIT_EVENT, ctx, event);
}

/* The claim device's primary context as the slice's; any other context as it is (a peer copy's
 * other side may be another GPU's). */
static CUcontext peer(CUcontext ctx) {
  CUcontext use = ctx;
  if (ctx != NULL && slice_classify(ctx) == CTX_SWAP && slice_context(&use) != CUDA_SUCCESS)
    use = ctx;
  return use;
}

CUresult cuGraphAddMemsetNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                              size_t ndeps, const void *params, CUcontext ctx) {
  CUresult r = confine(&ctx, "a graph memset node in a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphAddMemNode_fn, H_GRAPH_ADD_MEMSET_NODE, node, graph, deps,
                                                                                 ndeps, params, ctx);
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                              size_t ndeps, const void *params, CUcontext ctx) {
  CUresult r = confine(&ctx, "a graph memcpy node in a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphAddMemNode_fn, H_GRAPH_ADD_MEMCPY_NODE, node, graph, deps,
                                                                                 ndeps, params, ctx);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node, const void *params,
                                        CUcontext ctx) {
  CUresult r = confine(&ctx, "a graph memset node in a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphExecMemNodeSetParams_fn, H_GRAPH_EXEC_MEMSET_NODE_SET_PARAMS, exec, node, params, ctx);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node, const void *params,
                                        CUcontext ctx) {
  CUresult r = confine(&ctx, "a graph memcpy node in a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r
                           : CALL_REAL(cuGraphExecMemNodeSetParams_fn, H_GRAPH_EXEC_MEMCPY_NODE_SET_PARAMS, exec, node, params, ctx);
}

CUresult cuMemcpyPeer(unsigned long long dst, CUcontext dst_ctx, unsigned long long src,
                      CUcontext src_ctx, size_t bytes) {
  return CALL_REAL(cuMemcpyPeer_fn, H_MEMCPY_PEER, dst, peer(dst_ctx), src, peer(src_ctx), bytes);
}

CUresult cuMemcpyPeer_ptds(unsigned long long dst, CUcontext dst_ctx, unsigned long long src,
                           CUcontext src_ctx, size_t bytes) {
  return CALL_REAL(cuMemcpyPeer_fn, H_MEMCPY_PEER_PTDS, dst, peer(dst_ctx), src, peer(src_ctx), bytes);
}

CUresult cuMemcpyPeerAsync(unsigned long long dst, CUcontext dst_ctx, unsigned long long src,
                           CUcontext src_ctx, size_t bytes, CUstream stream) {
  return CALL_REAL(cuMemcpyPeerAsync_fn, H_MEMCPY_PEER_ASYNC, dst, peer(dst_ctx), src, peer(src_ctx),
                                                         bytes, stream);
}

CUresult cuMemcpyPeerAsync_ptsz(unsigned long long dst, CUcontext dst_ctx, unsigned long long src,
                                CUcontext src_ctx, size_t bytes, CUstream stream) {
  return CALL_REAL(cuMemcpyPeerAsync_fn, H_MEMCPY_PEER_ASYNC_PTSZ, dst, peer(dst_ctx), src,
                                                              peer(src_ctx), bytes, stream);
}
