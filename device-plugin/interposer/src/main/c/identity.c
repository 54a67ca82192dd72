/* Queries that name a context: a pointer's context is shown as the program's primary context when
 * it is the slice's (see slice_public), as cuCtxGetCurrent shows it. */
#include <stddef.h>

#include "cuda_driver.h"
#include "hooks.h"
#include "slice.h"
#include "wrappers.h"

CUresult cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr) {
  CUresult r = CALL_REAL(cuPointerGetAttribute_fn, H_POINTER_GET_ATTRIBUTE, data, attribute, ptr);
  if (r == CUDA_SUCCESS && attribute == CU_POINTER_ATTRIBUTE_CONTEXT && data != NULL)
    *(CUcontext *)data = slice_public(*(CUcontext *)data);
  return r;
}

CUresult cuPointerGetAttributes(unsigned int count, int *attributes, void **data,
                                unsigned long long ptr) {
  CUresult r = CALL_REAL(cuPointerGetAttributes_fn, H_POINTER_GET_ATTRIBUTES, count, attributes,
                                                                              data, ptr);
  if (r != CUDA_SUCCESS || attributes == NULL || data == NULL) return r;
  for (unsigned int i = 0; i < count; i++)
    if (attributes[i] == CU_POINTER_ATTRIBUTE_CONTEXT && data[i] != NULL)
      *(CUcontext *)data[i] = slice_public(*(CUcontext *)data[i]);
  return r;
}
