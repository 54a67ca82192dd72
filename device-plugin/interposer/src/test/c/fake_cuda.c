/* A fake libcuda.so.1 for the interposer's tests: two devices, primary contexts, green contexts
 * built from a split shaped like the H200's (15 groups of 8 SMs and a remainder of 12), created
 * contexts, streams, graphs and events. It runs nothing; it remembers which context every launch
 * would have run in, which is what the tests check, and keeps one timeline of the work launched:
 * a kernel launched with gridDimY FAKE_TIMED_Y runs gridDimX microseconds, everything else takes
 * no time, and an event completes when the work queued before it would have. A stream wait
 * (cuStreamWaitValue32) holds everything queued after it until its word equals the value once the
 * work before it has run, as the GPU's front end does; a thread of the fake plays that part while
 * such a wait is queued (FAKECUDA_NO_STREAM_WAITS=1: the driver refuses them). Internal calls
 * never go through exported names, so the interposer sees only what the program does. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))

enum { DEVICES = 2, SMS = 132, REMAINDER = 12, KIND_PRIMARY = 1, KIND_GREEN = 2, KIND_CREATED = 3 };

struct CUctx_st {
  int kind, dev;
  char groups[256];
};
struct CUgreenCtx_st {
  struct CUctx_st ctx;
  char desc_groups[160];
  unsigned int sms;
};
struct CUdevResourceDesc_st {
  char groups[160];
  int min;
  unsigned int sms;
};
struct CUstream_st {
  CUcontext ctx;
};
struct CUevent_st {
  long long at; /* when the work before it ends, CLOCK_MONOTONIC ns; UNKNOWN behind a wait */
};
struct CUgraph_st {
  int unused;
};
struct CUgraphExec_st {
  int unused;
};

static int initialized;
static struct CUctx_st primary[DEVICES] = {{KIND_PRIMARY, 0, ""}, {KIND_PRIMARY, 1, ""}};
static __thread CUcontext stack[16];
static __thread int depth;
static __thread char last_launch[256];
static int split_serial;
static int primary_refs[DEVICES];
enum { ALLOCATIONS = 64 };
static CUcontext allocation_ctx[ALLOCATIONS];
static int allocations;
static pthread_mutex_t timeline_lock = PTHREAD_MUTEX_INITIALIZER;
static long long busy_until;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

#define UNKNOWN __LONG_LONG_MAX__

/* What is queued behind a stream wait that has not passed yet, in order. */
enum { QUEUED = 4096, SPANS = 4096 };
static struct queued_op {
  enum { OP_WORK, OP_EVENT, OP_WAIT } kind;
  long long ns;
  CUevent event;
  const volatile unsigned *word;
  unsigned value, flags;
} queued[QUEUED];
static int queued_head, queued_tail;
static pthread_cond_t queued_changed = PTHREAD_COND_INITIALIZER;
static int front_started;
/* When each timed kernel ran, in launch order, for the tests to read. */
static long long spans[SPANS][2];
static int span_count;
static int waits_queued;

/* Runs work or records an event on the timeline. Caller holds timeline_lock. */
static void run_op(struct queued_op op) {
  if (op.kind == OP_WORK) {
    long long start = busy_until > now_ns() ? busy_until : now_ns();
    busy_until = start + op.ns;
    if (span_count < SPANS) {
      spans[span_count][0] = start;
      spans[span_count][1] = busy_until;
      span_count++;
    }
  } else if (op.kind == OP_EVENT) {
    __atomic_store_n(&op.event->at, busy_until, __ATOMIC_RELEASE);
  }
}

/* Whether a wait's condition holds, as CUstreamWaitValue_flags says: GEQ 0 (a cyclic compare),
 * EQ 1, AND 2, NOR 3. */
static int wait_passes(struct queued_op op) {
  unsigned word = *op.word;
  switch (op.flags) {
    case 0: return (int)(word - op.value) >= 0;
    case 1: return word == op.value;
    case 2: return (word & op.value) != 0;
    default: return ~(word | op.value) != 0;
  }
}

/* The GPU's front end: lets each queued wait pass once the work before it has run and its word
 * holds the value, and then runs what was queued behind it. */
static void *front_end(void *unused) {
  (void)unused;
  pthread_mutex_lock(&timeline_lock);
  for (;;) {
    while (queued_head == queued_tail) pthread_cond_wait(&queued_changed, &timeline_lock);
    struct queued_op op = queued[queued_head % QUEUED];
    if (op.kind == OP_WAIT && (now_ns() < busy_until || !wait_passes(op))) {
      pthread_mutex_unlock(&timeline_lock);
      struct timespec t = {0, 20000};
      nanosleep(&t, NULL);
      pthread_mutex_lock(&timeline_lock);
      continue;
    }
    run_op(op);
    queued_head++;
  }
  return NULL;
}

/* Runs an operation now, or queues it behind a wait that has not passed. */
static void submit(struct queued_op op) {
  pthread_mutex_lock(&timeline_lock);
  if (queued_head == queued_tail && op.kind != OP_WAIT) {
    run_op(op);
  } else {
    if (op.kind == OP_EVENT) __atomic_store_n(&op.event->at, UNKNOWN, __ATOMIC_RELEASE);
    while (queued_tail - queued_head >= QUEUED) {
      pthread_mutex_unlock(&timeline_lock);
      struct timespec t = {0, 100000};
      nanosleep(&t, NULL);
      pthread_mutex_lock(&timeline_lock);
    }
    queued[queued_tail++ % QUEUED] = op;
    if (!front_started) {
      pthread_t thread;
      front_started = pthread_create(&thread, NULL, front_end, NULL) == 0;
      if (front_started) pthread_detach(thread);
    }
    pthread_cond_signal(&queued_changed);
  }
  pthread_mutex_unlock(&timeline_lock);
}

/* Queues work of the given length behind what is queued already. */
static void queue_work(long long ns) { submit((struct queued_op){.kind = OP_WORK, .ns = ns}); }

EXPORT int fakecuda_kernel_spans(long long (*out)[2], int max) {
  pthread_mutex_lock(&timeline_lock);
  int n = span_count < max ? span_count : max;
  memcpy(out, spans, (size_t)n * sizeof spans[0]);
  pthread_mutex_unlock(&timeline_lock);
  return n;
}
EXPORT int fakecuda_stream_waits(void) { return __atomic_load_n(&waits_queued, __ATOMIC_RELAXED); }

#define NEED_INIT \
  if (!initialized) return 3

static CUcontext current(void) { return depth > 0 ? stack[depth - 1] : NULL; }

static void describe(CUcontext c, char *out, size_t cap) {
  if (c == NULL)
    snprintf(out, cap, "none");
  else if (c->kind == KIND_GREEN)
    snprintf(out, cap, "green(dev%d;%s)", c->dev, c->groups);
  else
    snprintf(out, cap, "%s(dev%d)", c->kind == KIND_PRIMARY ? "primary" : "created", c->dev);
}

EXPORT const char *fakecuda_describe(CUcontext c) {
  static __thread char text[256];
  describe(c, text, sizeof text);
  return text;
}

EXPORT const char *fakecuda_last_launch(void) { return last_launch; }

EXPORT CUresult cuInit(unsigned int flags) {
  (void)flags;
  initialized = 1;
  return 0;
}

/* FAKECUDA_DEVICE_COUNT_DELAY_MS makes the call slow, as a driver call may be. */
EXPORT CUresult cuDeviceGetCount(int *n) {
  NEED_INIT;
  const char *delay = getenv("FAKECUDA_DEVICE_COUNT_DELAY_MS");
  if (delay != NULL) usleep((useconds_t)atoi(delay) * 1000);
  *n = DEVICES;
  return 0;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  NEED_INIT;
  if (ordinal < 0 || ordinal >= DEVICES) return 101;
  *d = ordinal;
  return 0;
}

/* Device 0: GPU-00000000-0000-0000-0000-000000000000; device 1: every byte 0x11. */
EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d) {
  NEED_INIT;
  memset(u->bytes, d == 1 ? 0x11 : 0, sizeof u->bytes);
  return 0;
}
EXPORT CUresult cuDeviceGetUuid(CUuuid *u, CUdevice d) { return cuDeviceGetUuid_v2(u, d); }

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  NEED_INIT;
  *c = &primary[d];
  __atomic_add_fetch(&primary_refs[d], 1, __ATOMIC_SEQ_CST);
  return 0;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  NEED_INIT;
  return __atomic_sub_fetch(&primary_refs[d], 1, __ATOMIC_SEQ_CST) < 0 ? 1 : 0;
}

/* References held on a device's primary context. */
EXPORT int fakecuda_primary_refs(CUdevice d) { return primary_refs[d]; }

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *flags, int *active) {
  NEED_INIT;
  *flags = 0;
  *active = primary_refs[d] > 0;
  return 0;
}

EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice d) {
  NEED_INIT;
  (void)d;
  *value = attribute == 16 ? SMS : 0;
  return 0;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c) {
  NEED_INIT;
  if (depth == 0) depth = 1;
  stack[depth - 1] = c;
  return 0;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *c) {
  NEED_INIT;
  *c = current();
  return 0;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *d) {
  NEED_INIT;
  if (current() == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  *d = current()->dev;
  return 0;
}

static CUresult push(CUcontext c) {
  if (depth == 16) return 1;
  stack[depth++] = c;
  return 0;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext c) {
  NEED_INIT;
  return push(c);
}
EXPORT CUresult cuCtxPushCurrent(CUcontext c) { return cuCtxPushCurrent_v2(c); }

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *c) {
  NEED_INIT;
  if (depth == 0) return FAKE_ERROR_INVALID_CONTEXT;
  if (c != NULL) *c = stack[depth - 1];
  depth--;
  return 0;
}
EXPORT CUresult cuCtxPopCurrent(CUcontext *c) { return cuCtxPopCurrent_v2(c); }

static CUresult create(CUcontext *c, CUdevice d) {
  NEED_INIT;
  struct CUctx_st *made = calloc(1, sizeof *made);
  made->kind = KIND_CREATED;
  made->dev = d;
  *c = made;
  return push(made);
}

EXPORT CUresult cuCtxCreate_v2(CUcontext *c, unsigned int flags, CUdevice d) {
  (void)flags;
  return create(c, d);
}
EXPORT CUresult cuCtxCreate_v3(CUcontext *c, void *p, int n, unsigned int flags, CUdevice d) {
  (void)p, (void)n, (void)flags;
  return create(c, d);
}
EXPORT CUresult cuCtxCreate_v4(CUcontext *c, CUctxCreateParams *p, unsigned int flags,
                               CUdevice d) {
  (void)p, (void)flags;
  return create(c, d);
}

EXPORT CUresult cuGLCtxCreate_v2(CUcontext *c, unsigned int flags, CUdevice d) {
  (void)flags;
  return create(c, d);
}
EXPORT CUresult cuVDPAUCtxCreate_v2(CUcontext *c, unsigned int flags, CUdevice d, void *v,
                                    void *p) {
  (void)flags, (void)v, (void)p;
  return create(c, d);
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext c) {
  NEED_INIT;
  if (c == NULL || c->kind != KIND_CREATED) return FAKE_ERROR_INVALID_CONTEXT;
  if (current() == c) depth--;
  free(c);
  return 0;
}

/* Tags live in the resource's padding: group index, split serial, minCount, then the groups of
 * the green context a resource was split from ("" for the device's). Index -1 is a whole device,
 * -2 a whole green context. */
enum { PARENT_AT = 12, PARENT_LEN = 92 - PARENT_AT };

static void tag(CUdevResource *r, int index, int serial, int min, unsigned int sms,
                const char *parent) {
  memset(r, 0, sizeof *r);
  r->type = CU_DEV_RESOURCE_TYPE_SM;
  int t[3] = {index, serial, min};
  memcpy(r->internal_padding, t, sizeof t);
  snprintf((char *)r->internal_padding + PARENT_AT, PARENT_LEN, "%s", parent);
  r->sm.smCount = sms;
  r->sm.minSmPartitionSize = 8;
  r->sm.smCoscheduledAlignment = 8;
}

static const char *parent_of(const CUdevResource *r) {
  return (const char *)r->internal_padding + PARENT_AT;
}

EXPORT CUresult cuDeviceGetDevResource(CUdevice d, CUdevResource *r, int type) {
  NEED_INIT;
  if (type != CU_DEV_RESOURCE_TYPE_SM || d < 0 || d >= DEVICES) return 1;
  tag(r, -1, 0, 0, SMS, "");
  return 0;
}

EXPORT CUresult cuGreenCtxGetDevResource(CUgreenCtx g, CUdevResource *r, int type) {
  NEED_INIT;
  if (type != CU_DEV_RESOURCE_TYPE_SM || g == NULL) return 1;
  tag(r, -2, 0, 0, g->sms, g->desc_groups);
  return 0;
}

EXPORT CUresult cuCtxGetDevResource(CUcontext c, CUdevResource *r, int type) {
  if (c != NULL && c->kind == KIND_GREEN)
    return cuGreenCtxGetDevResource((CUgreenCtx)c, r, type);
  return cuDeviceGetDevResource(c == NULL ? 0 : c->dev, r, type);
}

EXPORT CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nb,
                                            const CUdevResource *input, CUdevResource *rem,
                                            unsigned int flags, unsigned int min) {
  NEED_INIT;
  (void)flags;
  int whole[1];
  memcpy(whole, input->internal_padding, sizeof whole);
  if (min == 0 || (whole[0] == -1 && input->sm.smCount != SMS) || (whole[0] != -1 && whole[0] != -2))
    return 1;
  unsigned int size = (min + 7) / 8 * 8;
  unsigned int usable = whole[0] == -1 ? SMS - REMAINDER : input->sm.smCount;
  unsigned int groups = usable / size;
  if (groups > *nb) groups = *nb;
  int serial = __atomic_add_fetch(&split_serial, 1, __ATOMIC_SEQ_CST);
  for (unsigned int i = 0; i < groups; i++)
    tag(&result[i], (int)i, serial, (int)min, size, parent_of(input));
  tag(rem, (int)groups, serial, (int)min, input->sm.smCount - groups * size, parent_of(input));
  *nb = groups;
  return 0;
}

/* CUDA 13.1's structured split, simplified: params is read as each group's SM count (all equal). */
EXPORT CUresult cuDevSmResourceSplit(CUdevResource *result, unsigned int nb,
                                     const CUdevResource *input, CUdevResource *rem,
                                     unsigned int flags, void *params) {
  unsigned int made = nb;
  CUresult r = cuDevSmResourceSplitByCount(result, &made, input, rem, flags,
                                           params == NULL ? 8 : *(unsigned int *)params);
  return r == 0 && made < nb ? 1 : r;
}

EXPORT CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *desc, CUdevResource *r,
                                          unsigned int n) {
  NEED_INIT;
  struct CUdevResourceDesc_st *made = calloc(1, sizeof *made);
  int first[3];
  memcpy(first, r[0].internal_padding, sizeof first);
  size_t len = 0;
  for (unsigned int i = 0; i < n; i++) {
    int t[3];
    memcpy(t, r[i].internal_padding, sizeof t);
    if (t[1] != first[1] || t[0] < 0) { /* the driver rejects a mix of splits */
      free(made);
      return 914;
    }
    const char *parent = parent_of(&r[i]);
    len += (size_t)snprintf(made->groups + len, sizeof made->groups - len, "%s%s%s%d",
                            i == 0 ? "" : ",", parent, parent[0] ? ":" : "", t[0]);
    made->sms += r[i].sm.smCount;
  }
  made->min = first[2];
  *desc = made;
  return 0;
}

EXPORT CUresult cuGreenCtxCreate(CUgreenCtx *g, CUdevResourceDesc desc, CUdevice d,
                                 unsigned int flags) {
  NEED_INIT;
  struct CUgreenCtx_st *made = calloc(1, sizeof *made);
  made->ctx.kind = KIND_GREEN;
  made->ctx.dev = d;
  snprintf(made->ctx.groups, sizeof made->ctx.groups, "min%d;groups%s;flags%u", desc->min,
           desc->groups, flags);
  snprintf(made->desc_groups, sizeof made->desc_groups, "%s", desc->groups);
  made->sms = desc->sms;
  *g = made;
  return 0;
}

EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx g) {
  NEED_INIT;
  free(g);
  return 0;
}

EXPORT CUresult cuCtxFromGreenCtx(CUcontext *c, CUgreenCtx g) {
  NEED_INIT;
  *c = &g->ctx;
  return 0;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int flags) {
  NEED_INIT;
  (void)flags;
  if (current() == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  *s = calloc(1, sizeof **s);
  (*s)->ctx = current();
  return 0;
}

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int flags, int priority) {
  (void)priority;
  return cuStreamCreate(s, flags);
}

/* The legacy stream, the per-thread stream and NULL belong to the thread's current context. */
static CUcontext stream_context(CUstream s) {
  return s == NULL || s == FAKE_STREAM_LEGACY || s == FAKE_STREAM_PER_THREAD ? current() : s->ctx;
}

EXPORT CUresult cuStreamGetCtx(CUstream s, CUcontext *c) {
  NEED_INIT;
  *c = stream_context(s);
  return *c == NULL ? FAKE_ERROR_INVALID_CONTEXT : 0;
}
EXPORT CUresult cuStreamGetCtx_ptsz(CUstream s, CUcontext *c) { return cuStreamGetCtx(s, c); }
EXPORT CUresult cuStreamGetCtx_v2(CUstream s, CUcontext *c, CUgreenCtx *g) {
  *g = NULL;
  return cuStreamGetCtx(s, c);
}
EXPORT CUresult cuStreamGetCtx_v2_ptsz(CUstream s, CUcontext *c, CUgreenCtx *g) {
  return cuStreamGetCtx_v2(s, c, g);
}

static CUresult launch(CUstream s, const char *how) {
  NEED_INIT;
  CUcontext c = stream_context(s);
  if (c == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  char text[200];
  describe(c, text, sizeof text);
  snprintf(last_launch, sizeof last_launch, "%s %s", how, text);
  return 0;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shmem, CUstream s, void **p,
                               void **e) {
  (void)f, (void)gz, (void)bx, (void)by, (void)bz, (void)shmem, (void)p, (void)e;
  CUresult r = launch(s, "kernel");
  if (r == 0 && gy == FAKE_TIMED_Y) queue_work((long long)gx * 1000);
  return r;
}
EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                                    unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                                    CUstream s, void **p, void **e) {
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, s == NULL ? FAKE_STREAM_PER_THREAD : s,
                        p, e);
}

EXPORT CUresult cuGraphCreate(CUgraph *g, unsigned int flags) {
  NEED_INIT;
  (void)flags;
  *g = calloc(1, sizeof **g);
  return 0;
}
EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long f) {
  NEED_INIT;
  (void)g, (void)f;
  *e = calloc(1, sizeof **e);
  return 0;
}
EXPORT CUresult cuGraphLaunch(CUgraphExec e, CUstream s) {
  (void)e;
  return launch(s, "graph");
}
EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s) {
  return cuGraphLaunch(e, s == NULL ? FAKE_STREAM_PER_THREAD : s);
}

/* An allocation's address is 0x1000 times its number; it remembers its context. */
/* The context the last graph kernel node or context-wide event named, as described above. */
static __thread char last_node[256];
EXPORT const char *fakecuda_last_node(void) { return last_node; }

static CUresult note_node(CUcontext c) {
  NEED_INIT;
  describe(c == NULL ? current() : c, last_node, sizeof last_node);
  return 0;
}

EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *n, CUgraph g, const CUgraphNode *d,
                                        size_t nd, const CUDA_KERNEL_NODE_PARAMS_v2 *p) {
  (void)n, (void)g, (void)d, (void)nd;
  return note_node(p->ctx);
}

EXPORT CUresult cuGraphAddNode(CUgraphNode *n, CUgraph g, const CUgraphNode *d, size_t nd,
                               CUgraphNodeParams *p) {
  (void)n, (void)g, (void)d, (void)nd;
  return p->type == CU_GRAPH_NODE_TYPE_KERNEL ? note_node(p->kernel.ctx) : 1;
}

EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *n, CUgraph g, const CUgraphNode *d, size_t nd,
                                     const void *p, CUcontext c) {
  (void)n, (void)g, (void)d, (void)nd, (void)p;
  return note_node(c);
}

EXPORT CUresult cuMemcpyPeer(unsigned long long dst, CUcontext dc, unsigned long long src,
                             CUcontext sc, size_t bytes) {
  (void)dst, (void)src, (void)sc, (void)bytes;
  return note_node(dc);
}

EXPORT CUresult cuCtxRecordEvent(CUcontext c, CUevent e) {
  (void)e;
  return note_node(c);
}

EXPORT CUresult cuMemcpyHtoDAsync_v2(unsigned long long d, const void *src, size_t n, CUstream s) {
  (void)d, (void)src, (void)n;
  return launch(s, "copy");
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t bytes, unsigned int flags) {
  NEED_INIT;
  (void)flags;
  if (current() == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  *p = calloc(1, bytes);
  return *p == NULL ? 2 : 0;
}
EXPORT CUresult cuMemHostGetDevicePointer_v2(unsigned long long *d, void *p, unsigned int flags) {
  NEED_INIT;
  (void)flags;
  *d = (unsigned long long)(uintptr_t)p; /* unified addressing: the same address */
  return 0;
}
EXPORT CUresult cuStreamWaitValue32_v2(CUstream s, unsigned long long address, unsigned value,
                                       unsigned flags) {
  NEED_INIT;
  const char *refuse = getenv("FAKECUDA_NO_STREAM_WAITS");
  if (refuse != NULL && strcmp(refuse, "1") == 0) return FAKE_ERROR_NOT_SUPPORTED;
  if (flags > 3) return 1; /* CUDA_ERROR_INVALID_VALUE: a flag (FLUSH) the fake has not */
  if (stream_context(s) == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  __atomic_add_fetch(&waits_queued, 1, __ATOMIC_RELAXED);
  submit((struct queued_op){.kind = OP_WAIT,
                            .word = (const volatile unsigned *)(uintptr_t)address,
                            .value = value,
                            .flags = flags});
  return 0;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags) {
  NEED_INIT;
  (void)flags;
  if (current() == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  *e = calloc(1, sizeof **e);
  return 0;
}
static int events_recorded;
EXPORT int fakecuda_events_recorded(void) { return events_recorded; }
EXPORT CUresult cuEventRecord(CUevent e, CUstream s) {
  NEED_INIT;
  __atomic_add_fetch(&events_recorded, 1, __ATOMIC_RELAXED);
  if (stream_context(s) == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  submit((struct queued_op){.kind = OP_EVENT, .event = e});
  return 0;
}
EXPORT CUresult cuEventQuery(CUevent e) {
  return now_ns() >= __atomic_load_n(&e->at, __ATOMIC_ACQUIRE) ? 0 : FAKE_ERROR_NOT_READY;
}
EXPORT CUresult cuEventSynchronize(CUevent e) {
  long long left;
  while ((left = __atomic_load_n(&e->at, __ATOMIC_ACQUIRE) - now_ns()) > 0) {
    if (left > 1000000) left = 1000000; /* behind a wait its time is not known yet */
    struct timespec t = {0, left};
    nanosleep(&t, NULL);
  }
  return 0;
}
EXPORT CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  *ms = (float)(end->at - start->at) / 1e6f;
  return 0;
}
EXPORT CUresult cuEventDestroy_v2(CUevent e) {
  free(e);
  return 0;
}
EXPORT CUresult cuStreamIsCapturing(CUstream s, int *status) {
  (void)s;
  *status = 0;
  return 0;
}
EXPORT CUresult cuThreadExchangeStreamCaptureMode(int *mode) {
  (void)mode;
  return 0;
}

EXPORT CUresult cuMemAlloc_v2(unsigned long long *p, size_t bytes) {
  NEED_INIT;
  (void)bytes;
  if (current() == NULL) return FAKE_ERROR_INVALID_CONTEXT;
  int n = __atomic_fetch_add(&allocations, 1, __ATOMIC_SEQ_CST);
  if (n >= ALLOCATIONS) return 2;
  allocation_ctx[n] = current();
  *p = 0x1000ull * (unsigned long long)(n + 1);
  return 0;
}

EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr) {
  NEED_INIT;
  unsigned long long n = ptr / 0x1000;
  if (attribute != 1 || n == 0 || n > (unsigned long long)allocations) return 1;
  *(CUcontext *)data = allocation_ctx[n - 1];
  return 0;
}

EXPORT CUresult cuPointerGetAttributes(unsigned int count, int *attributes, void **data,
                                       unsigned long long ptr) {
  for (unsigned int i = 0; i < count; i++) {
    CUresult r = cuPointerGetAttribute(data[i], attributes[i], ptr);
    if (r != 0) return r;
  }
  return 0;
}

typedef struct {
  const char *base, *symbol;
  int since, per_thread;
  void *fn;
} entry;

#define E(base, sym, since, ptds) {base, #sym, since, ptds, (void *)sym}
static const entry table[];
static const int table_size;

static CUresult lookup(const char *name, void **fn, int version, unsigned long long flags) {
  int per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  int best = -1, best_key = -1;
  for (int i = 0; i < table_size; i++) {
    if (strcmp(table[i].base, name) != 0 || table[i].since > version) continue;
    if (table[i].per_thread && !per_thread) continue;
    int key = table[i].since * 2 + (table[i].per_thread == per_thread);
    if (key > best_key) best = i, best_key = key;
  }
  *fn = best < 0 ? NULL : table[best].fn;
  return best < 0 ? FAKE_ERROR_NOT_FOUND : 0;
}

/* The fake's own address of an exported symbol, found without dlsym (which the interposer wraps). */
EXPORT void *fakecuda_real(const char *symbol) {
  for (int i = 0; i < table_size; i++)
    if (strcmp(table[i].symbol, symbol) == 0) return table[i].fn;
  return NULL;
}

EXPORT CUresult cuGetProcAddress_v2(const char *name, void **fn, int version,
                                    unsigned long long flags, int *status) {
  CUresult r = lookup(name, fn, version, flags);
  if (status != NULL) *status = r == 0 ? 0 : 1;
  return r;
}
EXPORT CUresult cuGetProcAddress(const char *name, void **fn, int version,
                                 unsigned long long flags) {
  return lookup(name, fn, version, flags);
}

static const entry table[] = {
    E("cuInit", cuInit, 2000, 0),
    E("cuGetProcAddress", cuGetProcAddress, 11030, 0),
    E("cuGetProcAddress", cuGetProcAddress_v2, 12000, 0),
    E("cuDeviceGetCount", cuDeviceGetCount, 2000, 0),
    E("cuDeviceGet", cuDeviceGet, 2000, 0),
    E("cuDeviceGetUuid", cuDeviceGetUuid, 9020, 0),
    E("cuDeviceGetUuid", cuDeviceGetUuid_v2, 11040, 0),
    E("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, 7000, 0),
    E("cuDevicePrimaryCtxGetState", cuDevicePrimaryCtxGetState, 7000, 0),
    E("cuCtxSetCurrent", cuCtxSetCurrent, 4000, 0),
    E("cuCtxGetCurrent", cuCtxGetCurrent, 4000, 0),
    E("cuCtxGetDevice", cuCtxGetDevice, 2000, 0),
    E("cuCtxPushCurrent", cuCtxPushCurrent_v2, 4000, 0),
    E("cuCtxPopCurrent", cuCtxPopCurrent_v2, 4000, 0),
    E("cuCtxCreate", cuCtxCreate_v2, 3020, 0),
    E("cuCtxCreate", cuCtxCreate_v3, 11040, 0),
    E("cuCtxCreate", cuCtxCreate_v4, 12050, 0),
    E("cuCtxDestroy", cuCtxDestroy_v2, 4000, 0),
    E("cuDeviceGetDevResource", cuDeviceGetDevResource, 12040, 0),
    E("cuDevSmResourceSplitByCount", cuDevSmResourceSplitByCount, 12040, 0),
    E("cuDevResourceGenerateDesc", cuDevResourceGenerateDesc, 12040, 0),
    E("cuGreenCtxCreate", cuGreenCtxCreate, 12040, 0),
    E("cuGreenCtxGetDevResource", cuGreenCtxGetDevResource, 12040, 0),
    E("cuDevSmResourceSplit", cuDevSmResourceSplit, 13010, 0),
    E("cuGraphAddKernelNode", cuGraphAddKernelNode_v2, 12000, 0),
    E("cuGraphAddNode", cuGraphAddNode, 12020, 0),
    E("cuCtxRecordEvent", cuCtxRecordEvent, 12050, 0),
    E("cuGraphAddMemsetNode", cuGraphAddMemsetNode, 10000, 0),
    E("cuMemcpyPeer", cuMemcpyPeer, 4000, 0),
    E("cuCtxGetDevResource", cuCtxGetDevResource, 12040, 0),
    E("cuGreenCtxDestroy", cuGreenCtxDestroy, 12040, 0),
    E("cuCtxFromGreenCtx", cuCtxFromGreenCtx, 12040, 0),
    E("cuStreamCreate", cuStreamCreate, 2000, 0),
    E("cuStreamCreateWithPriority", cuStreamCreateWithPriority, 5050, 0),
    E("cuStreamGetCtx", cuStreamGetCtx, 9020, 0),
    E("cuStreamGetCtx", cuStreamGetCtx_ptsz, 9020, 1),
    E("cuStreamGetCtx", cuStreamGetCtx_v2, 12050, 0),
    E("cuStreamGetCtx", cuStreamGetCtx_v2_ptsz, 12050, 1),
    E("cuLaunchKernel", cuLaunchKernel, 4000, 0),
    E("cuLaunchKernel", cuLaunchKernel_ptsz, 7000, 1),
    E("cuGraphCreate", cuGraphCreate, 10000, 0),
    E("cuGraphInstantiate", cuGraphInstantiateWithFlags, 11040, 0),
    E("cuGraphLaunch", cuGraphLaunch, 10000, 0),
    E("cuGraphLaunch", cuGraphLaunch_ptsz, 10000, 1),
    E("cuMemAlloc", cuMemAlloc_v2, 3020, 0),
    E("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2, 11000, 0),
    E("cuDeviceGetAttribute", cuDeviceGetAttribute, 2000, 0),
    E("cuPointerGetAttribute", cuPointerGetAttribute, 4000, 0),
    E("cuPointerGetAttributes", cuPointerGetAttributes, 7000, 0),
    E("cuGLCtxCreate", cuGLCtxCreate_v2, 3020, 0),
    E("cuVDPAUCtxCreate", cuVDPAUCtxCreate_v2, 3020, 0),
    E("cuMemcpyHtoDAsync", cuMemcpyHtoDAsync_v2, 3020, 0),
    E("cuEventCreate", cuEventCreate, 2000, 0),
    E("cuEventRecord", cuEventRecord, 2000, 0),
    E("cuEventQuery", cuEventQuery, 2000, 0),
    E("cuEventSynchronize", cuEventSynchronize, 2000, 0),
    E("cuEventElapsedTime", cuEventElapsedTime, 2000, 0),
    E("cuEventDestroy", cuEventDestroy_v2, 4000, 0),
    E("cuStreamIsCapturing", cuStreamIsCapturing, 10000, 0),
    E("cuThreadExchangeStreamCaptureMode", cuThreadExchangeStreamCaptureMode, 10010, 0),
};
static const int table_size = sizeof table / sizeof table[0];
