/* Calls that name the context their work runs in. The program holds the primary context's handle
 * (slice_public shows it that one), so each such context is confined as a context made current
 * is: the claim device's primary becomes the slice's context, one the library cannot confine is
 * refused. Graph kernel nodes, above all: a node naming the primary context would run on the
 * whole GPU. */
#include <stddef.h>
#include <string.h>

#include "cuda_driver.h"
#include "hooks.h"
#include "slice.h"
#include "wrappers.h"

#define REAL(fn_type, id) ((fn_type)real_of(id))

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
                           : REAL(cuGraphAddKernelNode_v2_fn, H_GRAPH_ADD_KERNEL_NODE_V2)(
                                 node, graph, deps, ndeps, &p);
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  CUresult r = kernel_params(params, &p);
  return r != CUDA_SUCCESS
             ? r
             : REAL(cuGraphKernelNodeSetParams_v2_fn, H_GRAPH_KERNEL_NODE_SET_PARAMS_V2)(node, &p);
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node,
                                           const CUDA_KERNEL_NODE_PARAMS_v2 *params) {
  CUDA_KERNEL_NODE_PARAMS_v2 p;
  CUresult r = kernel_params(params, &p);
  return r != CUDA_SUCCESS ? r
                           : REAL(cuGraphExecKernelNodeSetParams_v2_fn,
                                  H_GRAPH_EXEC_KERNEL_NODE_SET_PARAMS_V2)(exec, node, &p);
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
             : REAL(cuGraphAddNode_fn, H_GRAPH_ADD_NODE)(node, graph, deps, ndeps, use);
}

CUresult cuGraphAddNode_v2(CUgraphNode *node, CUgraph graph, const CUgraphNode *deps,
                           const void *edges, size_t ndeps, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS
             ? r
             : REAL(cuGraphAddNode_v2_fn, H_GRAPH_ADD_NODE_V2)(node, graph, deps, edges, ndeps,
                                                                use);
}

CUresult cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS ? r : REAL(cuGraphNodeSetParams_fn, H_GRAPH_NODE_SET_PARAMS)(node, use);
}

CUresult cuGraphExecNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraphNodeParams *params) {
  CUgraphNodeParams copy, *use;
  CUresult r = node_params(params, &copy, &use);
  return r != CUDA_SUCCESS
             ? r
             : REAL(cuGraphExecNodeSetParams_fn, H_GRAPH_EXEC_NODE_SET_PARAMS)(exec, node, use);
}

/* An event of all the work of a context: the slice's, not the idle primary context's. */
CUresult cuCtxRecordEvent(CUcontext ctx, CUevent event) {
  CUresult r = confine(&ctx, "cuCtxRecordEvent on a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : REAL(cuCtxEvent_fn, H_CTX_RECORD_EVENT)(ctx, event);
}

CUresult cuCtxWaitEvent(CUcontext ctx, CUevent event) {
  CUresult r = confine(&ctx, "cuCtxWaitEvent on a context outside the claim's slice");
  return r != CUDA_SUCCESS ? r : REAL(cuCtxEvent_fn, H_CTX_WAIT_EVENT)(ctx, event);
}
