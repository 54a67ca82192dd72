/* Reaches the (fake) driver the way the CUDA runtime does: dlopen("libcuda.so.1"), dlsym of
 * cuGetProcAddress_v2, and every other entry point through it. Each scenario prints one line per
 * step, "<step> <CUresult> <what the fake saw>", for the tests to check. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_cuda.h"

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*stream_create_fn)(CUstream *, unsigned int);
typedef CUresult (*stream_priority_fn)(CUstream *, unsigned int, int);
typedef CUresult (*graph_create_fn)(CUgraph *, unsigned int);
typedef CUresult (*graph_instantiate_fn)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*graph_launch_fn)(CUgraphExec, CUstream);

static void *libcuda;
static cuGetProcAddress_v2_fn get_proc;
static fakecuda_last_launch_fn last_launch;
static fakecuda_describe_fn describe;
static fakecuda_real_fn fake_real;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void *proc(const char *name, unsigned long long flags) {
  void *fn = NULL;
  int status;
  if (get_proc(name, &fn, 13000, flags, &status) != CUDA_SUCCESS) {
    fprintf(stderr, "runtime_like: no %s\n", name);
    exit(2);
  }
  return fn;
}
#define PROC(type, name) ((type)proc(name, 0))

static void line(const char *step, CUresult r, const char *seen) {
  pthread_mutex_lock(&print_lock);
  printf("%s %d %s\n", step, r, r == CUDA_SUCCESS ? seen : "-");
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
}

static void launch_on(const char *step, CUstream s, unsigned long long flags) {
  launch_fn launch = (launch_fn)proc("cuLaunchKernel", flags);
  line(step, launch(NULL, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), last_launch());
}

static CUresult primary_of(int ordinal, CUcontext *ctx) {
  CUdevice dev;
  CUresult r = PROC(cuDeviceGet_fn, "cuDeviceGet")(&dev, ordinal);
  return r != CUDA_SUCCESS ? r : PROC(cuDevicePrimaryCtxRetain_fn, "cuDevicePrimaryCtxRetain")(ctx, dev);
}

/* What cudaSetDevice(1) and a first runtime call do on a thread. */
static CUresult runtime_thread_setup(int push) {
  CUcontext primary = NULL;
  CUresult r = primary_of(1, &primary);
  if (r != CUDA_SUCCESS) return r;
  return push ? PROC(cuCtxPushCurrent_fn, "cuCtxPushCurrent")(primary)
              : PROC(cuCtxSetCurrent_fn, "cuCtxSetCurrent")(primary);
}

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

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (libcuda == NULL) {
    fprintf(stderr, "runtime_like: %s\n", dlerror());
    return 2;
  }
  get_proc = (cuGetProcAddress_v2_fn)dlsym(libcuda, "cuGetProcAddress_v2");
  last_launch = (fakecuda_last_launch_fn)dlsym(libcuda, "fakecuda_last_launch");
  describe = (fakecuda_describe_fn)dlsym(libcuda, "fakecuda_describe");
  fake_real = (fakecuda_real_fn)dlsym(libcuda, "fakecuda_real");
  if (!get_proc || !last_launch || !describe || !fake_real) return 2;
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
  else if (strcmp(argv[1], "linger") == 0) {
    runtime();
    usleep(300 * 1000); /* time for a message about the agent's connection */
  }
  else return 2;
  return 0;
}
