/* The driver functions the interposer itself calls (its own, not the program's). All of them are
 * resolved before the slice's lock is taken: looking one up under that lock would wait on the
 * dynamic loader's lock, which a thread in dlopen holds while a library constructor calls CUDA
 * and waits for the slice's lock (a deadlock). */
#ifndef SMSLICE_DRIVER_H
#define SMSLICE_DRIVER_H

typedef enum {
  D_DEVICE_GET_COUNT,
  D_DEVICE_GET,
  D_DEVICE_GET_UUID_V2,
  D_DEVICE_GET_UUID,
  D_PRIMARY_CTX_GET_STATE,
  D_PRIMARY_CTX_RETAIN,
  D_PRIMARY_CTX_RELEASE_V2,
  D_DEVICE_GET_DEV_RESOURCE,
  D_SM_RESOURCE_SPLIT_BY_COUNT,
  D_RESOURCE_GENERATE_DESC,
  D_GREEN_CTX_CREATE,
  D_GREEN_CTX_DESTROY,
  D_CTX_FROM_GREEN_CTX,
  D_CTX_PUSH_CURRENT_V2,
  D_CTX_POP_CURRENT_V2,
  D_CTX_GET_CURRENT,
  D_GREEN_CTX_GET_DEV_RESOURCE,
  D_COUNT
} driver_fn;

/* Looks every one up (lock-free; each lookup is stored once). */
void driver_resolve(void);

/* A resolved function, or NULL when the driver lacks it. */
void *driver(driver_fn id);

/* Calls a driver function, or gives CUDA_ERROR_NOT_SUPPORTED when the driver lacks it. */
#define DRIVER(fn_type, id, ...)                                 \
  ({                                                             \
    fn_type fn_ = (fn_type)driver(id);                           \
    fn_ == NULL ? CUDA_ERROR_NOT_SUPPORTED : fn_(__VA_ARGS__);   \
  })

#endif
