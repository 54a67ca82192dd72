#include "driver.h"

#include "real.h"

static const char *const names[D_COUNT] = {
    [D_DEVICE_GET_COUNT] = "cuDeviceGetCount",
    [D_DEVICE_GET] = "cuDeviceGet",
    [D_DEVICE_GET_UUID_V2] = "cuDeviceGetUuid_v2",
    [D_DEVICE_GET_UUID] = "cuDeviceGetUuid",
    [D_PRIMARY_CTX_GET_STATE] = "cuDevicePrimaryCtxGetState",
    [D_PRIMARY_CTX_RETAIN] = "cuDevicePrimaryCtxRetain",
    [D_PRIMARY_CTX_RELEASE_V2] = "cuDevicePrimaryCtxRelease_v2",
    [D_DEVICE_GET_DEV_RESOURCE] = "cuDeviceGetDevResource",
    [D_SM_RESOURCE_SPLIT_BY_COUNT] = "cuDevSmResourceSplitByCount",
    [D_RESOURCE_GENERATE_DESC] = "cuDevResourceGenerateDesc",
    [D_GREEN_CTX_CREATE] = "cuGreenCtxCreate",
    [D_GREEN_CTX_DESTROY] = "cuGreenCtxDestroy",
    [D_CTX_FROM_GREEN_CTX] = "cuCtxFromGreenCtx",
    [D_CTX_PUSH_CURRENT_V2] = "cuCtxPushCurrent_v2",
    [D_CTX_POP_CURRENT_V2] = "cuCtxPopCurrent_v2",
    [D_CTX_GET_CURRENT] = "cuCtxGetCurrent",
    [D_GREEN_CTX_GET_DEV_RESOURCE] = "cuGreenCtxGetDevResource",
};

static void *fns[D_COUNT];
static int resolved;

void driver_resolve(void) {
  if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE)) return;
  for (int i = 0; i < D_COUNT; i++) real_slot(&fns[i], names[i]);
  __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

void *driver(driver_fn id) {
  driver_resolve();
  return __atomic_load_n(&fns[id], __ATOMIC_ACQUIRE);
}
