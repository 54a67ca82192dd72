/* Reaches the (fake) driver the way the CUDA runtime does: dlopen("libcuda.so.1"), dlsym of
 * cuGetProcAddress_v2, and every other entry point through it. Each scenario prints one line per
 * step, "<step> <CUresult> <what the fake saw>", for the tests to check. */
#include <sys/wait.h>
#include <unistd.h>

#include "program_support.h"

static void *other_thread(void *arg) {
  int push = arg != NULL;
  const char *name = push ? "thread-push" : "thread-set";
  CUresult r = runtime_thread_setup(push);
  line(push ? "setup-thread-push" : "setup-thread-set", r, "ok");
  launch_on(name, NULL, 0);
  CUstream s = NULL;
  r = PROC(stream_create_fn, "cuStreamCreate")(&s, 0);
  char step[64];
  snprintf(step, sizeof step, "%s-created", name);
  if (r == CUDA_SUCCESS)
    launch_on(step, s, 0);
  else
    line(step, r, "-");
  return NULL;
}

static void runtime(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  line("setup", runtime_thread_setup(0), "ok");
  launch_on("legacy", NULL, 0);
  launch_on("legacy-handle", FAKE_STREAM_LEGACY, 0);
  launch_on("per-thread", NULL, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  launch_on("per-thread-handle", FAKE_STREAM_PER_THREAD, 0);
  CUstream created = NULL, nonblocking = NULL, prioritised = NULL;
  CUresult r = PROC(stream_create_fn, "cuStreamCreate")(&created, 0);
  r == CUDA_SUCCESS ? launch_on("created", created, 0) : line("created", r, "-");
  r = PROC(stream_create_fn, "cuStreamCreate")(&nonblocking, 1);
  r == CUDA_SUCCESS ? launch_on("non-blocking", nonblocking, 0) : line("non-blocking", r, "-");
  r = PROC(stream_priority_fn, "cuStreamCreateWithPriority")(&prioritised, 1, -5);
  r == CUDA_SUCCESS ? launch_on("prioritised", prioritised, 0) : line("prioritised", r, "-");
  CUgraph graph;
  CUgraphExec exec;
  r = PROC(graph_create_fn, "cuGraphCreate")(&graph, 0);
  if (r == CUDA_SUCCESS) r = PROC(graph_instantiate_fn, "cuGraphInstantiate")(&exec, graph, 0);
  if (r == CUDA_SUCCESS) {
    graph_launch_fn g = PROC(graph_launch_fn, "cuGraphLaunch");
    graph_launch_fn g_ptsz =
        (graph_launch_fn)proc("cuGraphLaunch", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    line("graph", g(exec, created), last_launch());
    line("graph-per-thread", g_ptsz(exec, NULL), last_launch());
  } else {
    line("graph", r, "-");
  }
  CUcontext ctx = NULL;
  r = PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&ctx);
  line("get-current", r, describe(ctx));
  CUgreenCtx green;
  r = PROC(cuStreamGetCtx_v2_fn, "cuStreamGetCtx")(NULL, &ctx, &green);
  line("stream-ctx", r, describe(ctx));
  cuStreamGetCtx_v2_fn per_thread_ctx =
      (cuStreamGetCtx_v2_fn)proc("cuStreamGetCtx", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  r = per_thread_ctx(NULL, &ctx, &green);
  line("stream-ctx-per-thread", r, describe(ctx));
  pthread_t t1, t2;
  pthread_create(&t1, NULL, other_thread, NULL);
  pthread_create(&t2, NULL, other_thread, (void *)1);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
}

/* Which lookups hand out wrappers and which the driver's own functions. */
static void passthrough(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  const char *unhooked[][2] = {{"cuMemAlloc", "cuMemAlloc_v2"},
                               {"cuStreamCreate", "cuStreamCreate"},
                               {"cuDeviceGet", "cuDeviceGet"}};
  for (size_t i = 0; i < sizeof unhooked / sizeof unhooked[0]; i++) {
    void *fn = proc(unhooked[i][0], 0);
    void *by_dlsym = dlsym(libcuda, unhooked[i][1]);
    char seen[96];
    snprintf(seen, sizeof seen, "driver's-own=%d", fn == fake_real(unhooked[i][1]) && by_dlsym == fn);
    line(unhooked[i][0], 0, seen);
  }
  const char *hooked[][2] = {{"cuCtxSetCurrent", "cuCtxSetCurrent"},
                             {"cuCtxPushCurrent", "cuCtxPushCurrent_v2"},
                             {"cuCtxGetCurrent", "cuCtxGetCurrent"},
                             {"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain"},
                             {"cuCtxCreate", "cuCtxCreate_v4"},
                             {"cuGreenCtxCreate", "cuGreenCtxCreate"},
                             {"cuGetProcAddress", "cuGetProcAddress_v2"},
                             {"cuLaunchKernel", "cuLaunchKernel"}};
  for (size_t i = 0; i < sizeof hooked / sizeof hooked[0]; i++) {
    void *fn = proc(hooked[i][0], 0);
    void *by_dlsym = dlsym(libcuda, hooked[i][1]);
    char seen[96];
    snprintf(seen, sizeof seen, "driver's-own=%d",
             fn == fake_real(hooked[i][1]) || by_dlsym == fake_real(hooked[i][1]));
    line(hooked[i][0], 0, seen);
  }
}

/* A program that makes its own contexts with the driver API. */
static void driver(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  cuCtxCreate_v4_fn create = PROC(cuCtxCreate_v4_fn, "cuCtxCreate");
  CUcontext mine = NULL, ctx = NULL;
  CUresult r = create(&mine, NULL, 0, 1);
  PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&ctx);
  line("create-on-claim-device", r, describe(ctx));
  CUstream s = NULL;
  r = PROC(stream_create_fn, "cuStreamCreate")(&s, 0);
  r == CUDA_SUCCESS ? launch_on("created-context-stream", s, 0) : line("created-context-stream", r, "-");
  line("destroy", PROC(cuCtxDestroy_fn, "cuCtxDestroy")(mine), "ok");
  ctx = NULL;
  PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&ctx);
  line("after-destroy-current", 0, describe(ctx));
  r = create(&mine, NULL, 0, 0);
  line("create-on-other-device", r, describe(mine));
  CUctxCreateParams params = {.execAffinityParams = &params, .numExecAffinityParams = 1};
  line("create-with-affinity", create(&mine, &params, 0, 1), "created");
  cuCtxCreate_v2_fn old_create = (cuCtxCreate_v2_fn)0;
  void *fn = NULL;
  int status;
  if (get_proc("cuCtxCreate", &fn, 11000, 0, &status) == CUDA_SUCCESS) old_create = (cuCtxCreate_v2_fn)fn;
  r = old_create(&mine, 0, 1);
  PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&ctx);
  line("create-v2-on-claim-device", r, describe(ctx));
  CUgreenCtx green;
  line("program-green-context", PROC(cuGreenCtxCreate_fn, "cuGreenCtxCreate")(&green, NULL, 1, 1), "made");
  CUcontext other = NULL;
  r = primary_of(0, &other);
  line("retain-other-device", r, describe(other));
  line("set-other-device-primary", PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(other), "set");
}

static void forked(void) {
  runtime_thread_setup(0);
  PROC(cuInit_fn, "cuInit")(0);
  line("parent-setup", runtime_thread_setup(0), "ok");
  launch_on("parent", NULL, 0);
  pid_t child = fork();
  if (child == 0) {
    char step[64];
    snprintf(step, sizeof step, "child-pid-%d", (int)getpid());
    line(step, 0, "started");
    line("child-cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
    line("child-setup", runtime_thread_setup(0), "ok");
    launch_on("child", NULL, 0);
    _exit(0);
  }
  int status;
  waitpid(child, &status, 0);
  char step[64];
  snprintf(step, sizeof step, "parent-pid-%d", (int)getpid());
  line(step, 0, "done");
  launch_on("parent-after-fork", NULL, 0);
}

/* Registers, then replaces itself with the runtime scenario: the new image must register anew
 * (same pid) and the old registration must end at exec (close-on-exec). */
static void exec_self(const char *self) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  fflush(stdout);
  execl(self, self, "runtime", (char *)NULL);
  perror("execl");
  exit(2);
}

/* The handles the program is shown are the ones it retained; its work still runs in the slice. */
static void identity(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  CUcontext primary = NULL, ctx = NULL;
  line("retain", primary_of(1, &primary), describe(primary));
  line("set", PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(primary), "ok");
  launch_on("launch", NULL, 0);
  char seen[32];
  CUresult r = PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&ctx);
  snprintf(seen, sizeof seen, "same=%d", ctx == primary);
  line("get-current", r, seen);
  CUgreenCtx green = (CUgreenCtx)0x1;
  r = PROC(cuStreamGetCtx_v2_fn, "cuStreamGetCtx")(NULL, &ctx, &green);
  snprintf(seen, sizeof seen, "same=%d green=%s", ctx == primary, green == NULL ? "none" : "some");
  line("stream-ctx", r, seen);
  unsigned long long ptr = 0;
  typedef CUresult (*alloc_fn)(unsigned long long *, size_t);
  line("alloc", PROC(alloc_fn, "cuMemAlloc")(&ptr, 64), "ok");
  ctx = NULL;
  r = PROC(cuPointerGetAttribute_fn, "cuPointerGetAttribute")(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT,
                                                              ptr);
  snprintf(seen, sizeof seen, "same=%d", ctx == primary);
  line("pointer-ctx", r, seen);
  int attribute = CU_POINTER_ATTRIBUTE_CONTEXT;
  void *data[1] = {&ctx};
  ctx = NULL;
  r = PROC(cuPointerGetAttributes_fn, "cuPointerGetAttributes")(1, &attribute, data, ptr);
  snprintf(seen, sizeof seen, "same=%d", ctx == primary);
  line("pointer-attributes-ctx", r, seen);
  ctx = NULL;
  r = PROC(cuCtxPopCurrent_fn, "cuCtxPopCurrent")(&ctx);
  snprintf(seen, sizeof seen, "same=%d", ctx == primary);
  line("pop", r, seen);
  line("push", PROC(cuCtxPushCurrent_fn, "cuCtxPushCurrent")(primary), "ok");
  launch_on("launch-after-push", NULL, 0);
  for (int dev = 0; dev < 2; dev++) {
    int sms = 0;
    r = PROC(cuDeviceGetAttribute_fn, "cuDeviceGetAttribute")(
        &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    snprintf(seen, sizeof seen, "%d", sms);
    line(dev == 1 ? "sm-count-claim-device" : "sm-count-other-device", r, seen);
  }
}

/* A primary context retained past the interposer (it learns the handle when it is made current)
 * must hold no reference of the interposer's once the program releases its own. */
static void unseen_primary(void) {
  PROC(cuInit_fn, "cuInit")(0);
  CUcontext primary = NULL;
  ((cuDevicePrimaryCtxRetain_fn)fake_real("cuDevicePrimaryCtxRetain"))(&primary, 1);
  line("set", PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(primary), "ok");
  launch_on("launch", NULL, 0);
  ((cuDevicePrimaryCtxRelease_fn)fake_real("cuDevicePrimaryCtxRelease_v2"))(1);
  char seen[32];
  snprintf(seen, sizeof seen, "%d", ((fakecuda_refs_fn)dlsym(libcuda, "fakecuda_primary_refs"))(1));
  line("primary-refs", 0, seen);
}

typedef CUresult (*graphics_ctx_fn)(CUcontext *, unsigned int, CUdevice);
typedef CUresult (*vdpau_ctx_fn)(CUcontext *, unsigned int, CUdevice, void *, void *);

static void graphics(void) {
  PROC(cuInit_fn, "cuInit")(0);
  CUcontext ctx = NULL;
  line("gl-context", PROC(graphics_ctx_fn, "cuGLCtxCreate")(&ctx, 0, 1), describe(ctx));
  line("vdpau-context", PROC(vdpau_ctx_fn, "cuVDPAUCtxCreate")(&ctx, 0, 1, NULL, NULL),
       describe(ctx));
}

static void *small_stack_thread(void *unused) {
  (void)unused;
  line("small-stack-setup", runtime_thread_setup(0), "ok");
  launch_on("small-stack", NULL, 0);
  return NULL;
}

/* The slice is built on the first thread that needs it, whatever its stack (32 KiB here). */
static void small_stack(void) {
  PROC(cuInit_fn, "cuInit")(0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 32 * 1024);
  pthread_t t;
  pthread_create(&t, &attr, small_stack_thread, NULL);
  pthread_join(t, NULL);
}

typedef CUresult (*get_resource_fn)(CUdevice, CUdevResource *, int);

/* Splits resource in halves of min SMs, makes a green context of the second and launches in it. */
static void green_of(const char *step, const CUdevResource *resource, CUdevice dev) {
  CUdevResource parts[16], rest;
  unsigned int n = 16;
  CUresult r = PROC(cuDevSmResourceSplitByCount_fn, "cuDevSmResourceSplitByCount")(
      parts, &n, resource, &rest, 0, 8);
  CUdevResourceDesc desc = NULL;
  if (r == CUDA_SUCCESS)
    r = PROC(cuDevResourceGenerateDesc_fn, "cuDevResourceGenerateDesc")(&desc, &parts[1], 1);
  CUgreenCtx green = NULL;
  if (r == CUDA_SUCCESS)
    r = PROC(cuGreenCtxCreate_fn, "cuGreenCtxCreate")(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
  CUcontext ctx = NULL;
  if (r == CUDA_SUCCESS) r = PROC(cuCtxFromGreenCtx_fn, "cuCtxFromGreenCtx")(&ctx, green);
  if (r == CUDA_SUCCESS) r = PROC(cuCtxPushCurrent_fn, "cuCtxPushCurrent")(ctx);
  if (r != CUDA_SUCCESS) {
    line(step, r, "-");
    return;
  }
  launch_on(step, NULL, 0);
  CUcontext popped;
  PROC(cuCtxPopCurrent_fn, "cuCtxPopCurrent")(&popped);
  char seen[32];
  snprintf(seen, sizeof seen, "ok");
  line("destroy-green", PROC(cuGreenCtxDestroy_fn, "cuGreenCtxDestroy")(green), seen);
}

/* A program that sub-partitions the SMs it is shown (torch.cuda.green_contexts does this). */
static void program_green(void) {
  line("cuInit", PROC(cuInit_fn, "cuInit")(0), "ok");
  line("setup", runtime_thread_setup(0), "ok");
  CUdevResource shown;
  char seen[32];
  CUresult r = PROC(get_resource_fn, "cuDeviceGetDevResource")(1, &shown, CU_DEV_RESOURCE_TYPE_SM);
  snprintf(seen, sizeof seen, "%u", shown.sm.smCount);
  line("device-sms", r, seen);
  green_of("own-green", &shown, 1);
  CUcontext current = NULL;
  PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&current);
  typedef CUresult (*ctx_resource_fn)(CUcontext, CUdevResource *, int);
  r = PROC(ctx_resource_fn, "cuCtxGetDevResource")(current, &shown, CU_DEV_RESOURCE_TYPE_SM);
  snprintf(seen, sizeof seen, "%u", shown.sm.smCount);
  line("context-sms", r, seen);
  launch_on("after-green", NULL, 0);
  CUdevResource other;
  PROC(get_resource_fn, "cuDeviceGetDevResource")(0, &other, CU_DEV_RESOURCE_TYPE_SM);
  green_of("other-device-green", &other, 0);
  CUdevResource whole;
  ((get_resource_fn)fake_real("cuDeviceGetDevResource"))(1, &whole, CU_DEV_RESOURCE_TYPE_SM);
  green_of("whole-device-green", &whole, 1);
}

/* The CUDA 13.1 structured split (driver 590+), found with cuGetProcAddress for version 13.1. */
static void structured_green(void) {
  PROC(cuInit_fn, "cuInit")(0);
  runtime_thread_setup(0);
  void *fn = NULL;
  int status;
  if (get_proc("cuDevSmResourceSplit", &fn, 13010, 0, &status) != CUDA_SUCCESS) return;
  CUdevResource shown, parts[2], rest;
  PROC(get_resource_fn, "cuDeviceGetDevResource")(1, &shown, CU_DEV_RESOURCE_TYPE_SM);
  unsigned int sms = 8;
  CUresult r = ((cuDevSmResourceSplit_fn)fn)(parts, 2, &shown, &rest, 0, &sms);
  CUdevResourceDesc desc = NULL;
  if (r == CUDA_SUCCESS)
    r = PROC(cuDevResourceGenerateDesc_fn, "cuDevResourceGenerateDesc")(&desc, &parts[0], 1);
  CUgreenCtx green = NULL;
  if (r == CUDA_SUCCESS)
    r = PROC(cuGreenCtxCreate_fn, "cuGreenCtxCreate")(&green, desc, 1, CU_GREEN_CTX_DEFAULT_STREAM);
  CUcontext ctx = NULL;
  if (r == CUDA_SUCCESS) r = PROC(cuCtxFromGreenCtx_fn, "cuCtxFromGreenCtx")(&ctx, green);
  if (r == CUDA_SUCCESS) r = PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(ctx);
  if (r != CUDA_SUCCESS)
    line("structured-green", r, "-");
  else
    launch_on("structured-green", NULL, 0);
}

typedef CUresult (*add_kernel_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                       const CUDA_KERNEL_NODE_PARAMS_v2 *);
typedef CUresult (*add_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                CUgraphNodeParams *);
typedef CUresult (*ctx_event_fn)(CUcontext, CUevent);

/* Work that names its context: with the handle cuCtxGetCurrent shows (the primary context's). */
static void work_contexts(void) {
  PROC(cuInit_fn, "cuInit")(0);
  runtime_thread_setup(0);
  const char *(*last_node)(void) = (const char *(*)(void))dlsym(libcuda, "fakecuda_last_node");
  CUcontext shown = NULL, other = NULL;
  PROC(cuCtxGetCurrent_fn, "cuCtxGetCurrent")(&shown);
  CUgraph graph;
  PROC(graph_create_fn, "cuGraphCreate")(&graph, 0);
  CUgraphNode node;
  CUDA_KERNEL_NODE_PARAMS_v2 kernel = {.gridDimX = 1, .ctx = shown};
  CUresult r = PROC(add_kernel_node_fn, "cuGraphAddKernelNode")(&node, graph, NULL, 0, &kernel);
  line("kernel-node", r, last_node());
  CUgraphNodeParams params = {.type = CU_GRAPH_NODE_TYPE_KERNEL, .kernel = kernel};
  r = PROC(add_node_fn, "cuGraphAddNode")(&node, graph, NULL, 0, &params);
  line("generic-kernel-node", r, last_node());
  r = PROC(ctx_event_fn, "cuCtxRecordEvent")(shown, NULL);
  line("ctx-record-event", r, last_node());
  typedef CUresult (*memset_node_fn)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                     const void *, CUcontext);
  r = PROC(memset_node_fn, "cuGraphAddMemsetNode")(&node, graph, NULL, 0, NULL, shown);
  line("memset-node", r, last_node());
  typedef CUresult (*peer_fn)(unsigned long long, CUcontext, unsigned long long, CUcontext, size_t);
  r = PROC(peer_fn, "cuMemcpyPeer")(0, shown, 0, shown, 8);
  line("memcpy-peer", r, last_node());
  primary_of(0, &other);
  kernel.ctx = other;
  r = PROC(add_kernel_node_fn, "cuGraphAddKernelNode")(&node, graph, NULL, 0, &kernel);
  line("kernel-node-other-device", r, last_node());
  /* An entry point the interposer exports but this driver lacks (cuCtxWaitEvent). */
  ctx_event_fn wait = (ctx_event_fn)dlsym(RTLD_DEFAULT, "cuCtxWaitEvent");
  line("missing-in-driver", wait == NULL ? -1 : wait(shown, NULL), "-");
}

#ifdef RUNTIME_LIKE_LIBRARY
/* Built as a library too, for a loader to load with RTLD_DEEPBIND or dlmopen. */
__attribute__((visibility("default"))) int runtime_like_main(int argc, char **argv);
int runtime_like_main(int argc, char **argv) {
#else
int main(int argc, char **argv) {
#endif
  if (argc < 2) return 2;
  if (open_driver() != 0) return 2;
  if (strcmp(argv[1], "runtime") == 0) runtime();
  else if (strcmp(argv[1], "passthrough") == 0) passthrough();
  else if (strcmp(argv[1], "driver") == 0) driver();
  else if (strcmp(argv[1], "fork") == 0) forked();
  else if (strcmp(argv[1], "exec") == 0) exec_self(argv[0]);
  else if (strcmp(argv[1], "mps-env") == 0) {
    const char *pipe = getenv("CUDA_MPS_PIPE_DIRECTORY");
    printf("mps-env %s\n", pipe ? pipe : "-");
    runtime();
  }
  else if (strcmp(argv[1], "identity") == 0) identity();
  else if (strcmp(argv[1], "unseen-primary") == 0) unseen_primary();
  else if (strcmp(argv[1], "graphics") == 0) graphics();
  else if (strcmp(argv[1], "program-green") == 0) program_green();
  else if (strcmp(argv[1], "work-contexts") == 0) work_contexts();
  else if (strcmp(argv[1], "structured-green") == 0) structured_green();
  else if (strcmp(argv[1], "small-stack") == 0) small_stack();
  else if (strcmp(argv[1], "linger") == 0) {
    runtime();
    usleep(300 * 1000); /* time for a message about the agent's connection */
  }
  else return 2;
  return 0;
}
