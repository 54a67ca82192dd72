#include "slice.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "agent_attach.h"
#include "driver.h"
#include "log.h"
#include "program_green.h"
#include "real.h"
#include "registration.h"
#include "tenant_env.h"

enum { NOT_YET = 0, READY = 1, FAILED = -1 };
enum { MAX_OWNED = 64, MAX_PRIMARIES = 16 };

typedef struct {
  CUcontext ctx;
  CUgreenCtx green;
} owned_context;

typedef struct {
  CUdevice dev;
  CUcontext ctx;
} primary_context;

/* All of it is per process: the fork handler resets it in a child. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int attach_state, context_state;
static attach_answer answer;
static CUdevice device = -1;
static CUdevResourceDesc desc;
static CUgreenCtx green;
static CUcontext slice_ctx;
static owned_context owned[MAX_OWNED];
static int owned_count;
static primary_context primaries[MAX_PRIMARIES];
static int primary_count;
static CUdevResource split[SMSLICE_MAX_GROUPS + 1];

static int load_state(const int *state) { return __atomic_load_n(state, __ATOMIC_ACQUIRE); }
static void store_state(int *state, int v) { __atomic_store_n(state, v, __ATOMIC_RELEASE); }

static int slice_failed(void) {
  return load_state(&attach_state) == FAILED || load_state(&context_state) == FAILED;
}

CUresult slice_refuse(const char *what) {
  if (slice_failed()) return CUDA_ERROR_NOT_PERMITTED; /* the reason was printed already */
  smslice_error("%s refused: this process would run outside its claim's SMs", what);
  return CUDA_ERROR_NOT_PERMITTED;
}


CUresult slice_attach(void) {
  int state = load_state(&attach_state);
  if (state != NOT_YET) return state == READY ? CUDA_SUCCESS : CUDA_ERROR_NOT_PERMITTED;
  /* The program's own libraries' constructors may call CUDA before the interposer's ran. */
  tenant_env_restore();
  driver_resolve();
  pthread_mutex_lock(&lock);
  if (attach_state == NOT_YET) {
    char why[700];
    if (registration_open(&answer, why, sizeof why) != 0) {
      store_state(&attach_state, FAILED);
      pthread_mutex_unlock(&lock);
      registration_failed(why);
      return CUDA_ERROR_NOT_PERMITTED;
    }
    smslice_debug("attached: GPU %s, %d groups of split(min %d, %d entries), %d SMs",
                  answer.gpu_uuid, answer.group_count, answer.min_partition,
                  answer.split_entries, answer.sms);
    store_state(&attach_state, READY);
    pthread_mutex_unlock(&lock);
    registration_keep();
    return CUDA_SUCCESS;
  }
  pthread_mutex_unlock(&lock);
  return load_state(&attach_state) == READY ? CUDA_SUCCESS : CUDA_ERROR_NOT_PERMITTED;
}

static int fail_context(const char *what, CUresult r) {
  smslice_error("%s failed (CUDA error %d); CUDA is refused in this process so that it never "
                "runs outside its claim's SMs", what, r);
  return -1;
}

static void format_uuid(const CUuuid *u, char *out, size_t cap) {
  const unsigned char *b = (const unsigned char *)u->bytes;
  snprintf(out, cap,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
           b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
           b[14], b[15]);
}

static int find_device(void) {
  int count = 0;
  CUresult r = DRIVER(cuDeviceGetCount_fn, D_DEVICE_GET_COUNT, &count);
  if (r != CUDA_SUCCESS) return fail_context("cuDeviceGetCount", r);
  cuDeviceGetUuid_fn get_uuid = (cuDeviceGetUuid_fn)driver(D_DEVICE_GET_UUID_V2);
  if (get_uuid == NULL) get_uuid = (cuDeviceGetUuid_fn)driver(D_DEVICE_GET_UUID);
  if (get_uuid == NULL) return fail_context("finding cuDeviceGetUuid", CUDA_ERROR_NOT_SUPPORTED);
  for (int i = 0; i < count; i++) {
    CUdevice dev;
    CUuuid uuid;
    char text[64];
    if ((r = DRIVER(cuDeviceGet_fn, D_DEVICE_GET, &dev, i)) != CUDA_SUCCESS)
      return fail_context("cuDeviceGet", r);
    if ((r = get_uuid(&uuid, dev)) != CUDA_SUCCESS) return fail_context("cuDeviceGetUuid", r);
    format_uuid(&uuid, text, sizeof text);
    if (strcasecmp(text, answer.gpu_uuid) == 0) return dev;
  }
  smslice_error("the claim's GPU %s is not among this process's %d CUDA devices; CUDA is "
                "refused in this process", answer.gpu_uuid, count);
  return -1;
}

/* Splits the device's SMs exactly as the node did and makes a green context of the claim's groups. */
static int build_context(void) {
  if ((device = find_device()) < 0) return -1;
  CUdevResource whole, remainder;
  memset(&remainder, 0, sizeof remainder);
  CUresult r = DRIVER(cuDeviceGetDevResource_fn, D_DEVICE_GET_DEV_RESOURCE, device, &whole,
                    CU_DEV_RESOURCE_TYPE_SM);
  if (r != CUDA_SUCCESS) return fail_context("cuDeviceGetDevResource(SM)", r);
  unsigned int made = whole.sm.smCount / (unsigned)answer.min_partition;
  if (made > SMSLICE_MAX_GROUPS) made = SMSLICE_MAX_GROUPS;
  r = DRIVER(cuDevSmResourceSplitByCount_fn, D_SM_RESOURCE_SPLIT_BY_COUNT, split, &made, &whole,
           &remainder, 0, (unsigned)answer.min_partition);
  if (r != CUDA_SUCCESS) return fail_context("cuDevSmResourceSplitByCount", r);
  int entries = (int)made + (remainder.sm.smCount > 0 ? 1 : 0);
  if (entries != answer.split_entries) {
    smslice_error("split(minCount %d) of GPU %s gave %d entries here but %d at the agent; the "
                  "groups would not be the claim's, so CUDA is refused in this process",
                  answer.min_partition, answer.gpu_uuid, entries, answer.split_entries);
    return -1;
  }
  if (remainder.sm.smCount > 0) split[made] = remainder;
  static CUdevResource chosen[SMSLICE_MAX_GROUPS]; /* 36 KB: not on a thread's stack */
  int sms = 0;
  for (int i = 0; i < answer.group_count; i++) {
    chosen[i] = split[answer.groups[i]];
    sms += (int)chosen[i].sm.smCount;
  }
  if (sms != answer.sms) {
    smslice_error("the claim's groups hold %d SMs here but %d at the agent; CUDA is refused in "
                  "this process", sms, answer.sms);
    return -1;
  }
  r = DRIVER(cuDevResourceGenerateDesc_fn, D_RESOURCE_GENERATE_DESC, &desc, chosen,
           (unsigned)answer.group_count);
  if (r != CUDA_SUCCESS) return fail_context("cuDevResourceGenerateDesc", r);
  r = DRIVER(cuGreenCtxCreate_fn, D_GREEN_CTX_CREATE, &green, desc, device,
           CU_GREEN_CTX_DEFAULT_STREAM);
  if (r != CUDA_SUCCESS) return fail_context("cuGreenCtxCreate", r);
  r = DRIVER(cuCtxFromGreenCtx_fn, D_CTX_FROM_GREEN_CTX, &slice_ctx, green);
  if (r != CUDA_SUCCESS) return fail_context("cuCtxFromGreenCtx", r);
  smslice_debug("green context of %d SMs on device %d ready", sms, device);
  return 0;
}

CUresult slice_context(CUcontext *out) {
  int state = load_state(&context_state);
  if (state == NOT_YET) {
    if (slice_attach() != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
    pthread_mutex_lock(&lock);
    if (context_state == NOT_YET) store_state(&context_state, build_context() == 0 ? READY : FAILED);
    pthread_mutex_unlock(&lock);
    state = load_state(&context_state);
  }
  if (state != READY) return CUDA_ERROR_NOT_PERMITTED;
  *out = slice_ctx;
  return CUDA_SUCCESS;
}

void slice_note_primary(CUdevice dev, CUcontext ctx) {
  pthread_mutex_lock(&lock);
  int known = 0;
  for (int i = 0; i < primary_count; i++) known |= primaries[i].ctx == ctx;
  if (!known && primary_count < MAX_PRIMARIES)
    primaries[primary_count++] = (primary_context){dev, ctx};
  pthread_mutex_unlock(&lock);
}

/* The device a known primary context belongs to, or -1. Caller holds the lock. */
static CUdevice primary_device(CUcontext ctx) {
  for (int i = 0; i < primary_count; i++)
    if (primaries[i].ctx == ctx) return primaries[i].dev;
  return -1;
}

static int is_owned(CUcontext ctx) {
  for (int i = 0; i < owned_count; i++)
    if (owned[i].ctx == ctx) return 1;
  return 0;
}

ctx_kind slice_classify(CUcontext ctx) {
  if (ctx == NULL) return CTX_PASS;
  CUcontext mine;
  if (slice_context(&mine) != CUDA_SUCCESS) return CTX_REFUSE;
  if (ctx == mine) return CTX_PASS;
  pthread_mutex_lock(&lock);
  ctx_kind kind;
  CUdevice dev = primary_device(ctx);
  if (is_owned(ctx) || program_green_owns(ctx)) {
    kind = CTX_PASS;
  } else if (dev >= 0) {
    kind = dev == device ? CTX_SWAP : CTX_REFUSE;
  } else {
    /* Not seen yet: learn the claim device's primary context, if it is active, and compare. The
     * reference taken to learn it is given back at once: someone else keeps it active. */
    unsigned int flags;
    int active = 0;
    CUcontext primary = NULL;
    if (DRIVER(cuDevicePrimaryCtxGetState_fn, D_PRIMARY_CTX_GET_STATE, device, &flags,
               &active) == CUDA_SUCCESS &&
        active &&
        DRIVER(cuDevicePrimaryCtxRetain_fn, D_PRIMARY_CTX_RETAIN, &primary, device) ==
            CUDA_SUCCESS) {
      DRIVER(cuDevicePrimaryCtxRelease_fn, D_PRIMARY_CTX_RELEASE_V2, device);
      if (primary_count < MAX_PRIMARIES)
        primaries[primary_count++] = (primary_context){device, primary};
    }
    kind = ctx == primary ? CTX_SWAP : CTX_REFUSE;
  }
  pthread_mutex_unlock(&lock);
  return kind;
}

CUcontext slice_public(CUcontext ctx) {
  if (ctx == NULL || load_state(&context_state) != READY || ctx != slice_ctx) return ctx;
  CUcontext shown = ctx;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < primary_count; i++)
    if (primaries[i].dev == device) shown = primaries[i].ctx;
  pthread_mutex_unlock(&lock);
  return shown;
}

CUgreenCtx slice_green(CUcontext ctx) {
  if (load_state(&context_state) != READY || ctx == NULL) return NULL;
  if (ctx == slice_ctx) return green;
  CUgreenCtx made = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < owned_count; i++)
    if (owned[i].ctx == ctx) made = owned[i].green;
  for (int i = 0; i < primary_count; i++)
    if (primaries[i].ctx == ctx && primaries[i].dev == device) made = green;
  pthread_mutex_unlock(&lock);
  return made;
}

int slice_is_own_green(CUgreenCtx g) {
  return g != NULL && load_state(&context_state) == READY && g == green;
}

int slice_claim_device(void) {
  CUcontext mine;
  return slice_context(&mine) == CUDA_SUCCESS ? device : -1;
}

int slice_claim_sms(CUdevice dev) {
  CUcontext mine;
  if (load_state(&attach_state) != READY || slice_context(&mine) != CUDA_SUCCESS) return -1;
  return dev == device ? answer.sms : -1;
}

CUresult slice_create_context(CUdevice dev, CUcontext *out) {
  CUcontext mine;
  if (slice_context(&mine) != CUDA_SUCCESS) return CUDA_ERROR_NOT_PERMITTED;
  if (dev != device) {
    smslice_error("a context on CUDA device %d refused: the claim's slice is on device %d", dev,
                  device);
    return CUDA_ERROR_NOT_PERMITTED;
  }
  CUgreenCtx made;
  CUcontext ctx;
  CUresult r = DRIVER(cuGreenCtxCreate_fn, D_GREEN_CTX_CREATE, &made, desc, device,
                    CU_GREEN_CTX_DEFAULT_STREAM);
  if (r != CUDA_SUCCESS) return r;
  if ((r = DRIVER(cuCtxFromGreenCtx_fn, D_CTX_FROM_GREEN_CTX, &ctx, made)) != CUDA_SUCCESS ||
      (r = DRIVER(cuCtxPushCurrent_fn, D_CTX_PUSH_CURRENT_V2, ctx)) != CUDA_SUCCESS) {
    DRIVER(cuGreenCtxDestroy_fn, D_GREEN_CTX_DESTROY, made);
    return r;
  }
  pthread_mutex_lock(&lock);
  int full = owned_count == MAX_OWNED;
  if (!full) owned[owned_count++] = (owned_context){ctx, made};
  pthread_mutex_unlock(&lock);
  if (full) {
    CUcontext popped;
    DRIVER(cuCtxPopCurrent_fn, D_CTX_POP_CURRENT_V2, &popped);
    DRIVER(cuGreenCtxDestroy_fn, D_GREEN_CTX_DESTROY, made);
    smslice_error("more than %d contexts created by this process: refused", MAX_OWNED);
    return CUDA_ERROR_NOT_PERMITTED;
  }
  *out = ctx;
  return CUDA_SUCCESS;
}

int slice_destroy_context(CUcontext ctx, CUresult *result) {
  CUgreenCtx made = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < owned_count; i++) {
    if (owned[i].ctx == ctx) {
      made = owned[i].green;
      owned[i] = owned[--owned_count];
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  if (made == NULL) return 0;
  /* cuCtxDestroy pops the context from this thread's stack when it is current. */
  CUcontext current = NULL;
  if (DRIVER(cuCtxGetCurrent_fn, D_CTX_GET_CURRENT, &current) == CUDA_SUCCESS && current == ctx)
    DRIVER(cuCtxPopCurrent_fn, D_CTX_POP_CURRENT_V2, &current);
  *result = DRIVER(cuGreenCtxDestroy_fn, D_GREEN_CTX_DESTROY, made);
  return 1;
}

/* A child inherits the parent's registration and contexts, neither of which is its own: it
 * attaches afresh (with its own pid) on first CUDA use. */
static void forget_in_child(void) {
  pthread_mutex_init(&lock, NULL);
  registration_after_fork_child();
  attach_state = context_state = NOT_YET;
  device = -1;
  desc = NULL;
  green = NULL;
  slice_ctx = NULL;
  owned_count = primary_count = 0;
}

/* Before main, and so before the driver reads CUDA_MPS_* at cuInit. */
__attribute__((constructor)) static void at_load(void) {
  tenant_env_restore();
  real_loader_init();
  pthread_atfork(registration_before_fork, registration_after_fork_parent, forget_in_child);
}
