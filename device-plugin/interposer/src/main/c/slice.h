/* The process's slice: its registration with the agent and the green context built from the
 * claim's SM groups. Everything is made once, on first need, and shared by all threads. */
#ifndef SMSLICE_SLICE_H
#define SMSLICE_SLICE_H

#include "cuda_driver.h"

/* Registers with the agent once per process; CUDA_SUCCESS or CUDA_ERROR_NOT_PERMITTED. */
CUresult slice_attach(void);

/* The claim's green context as a CUcontext, built on first call (after cuInit). */
CUresult slice_context(CUcontext *out);

/* What a context about to become current means for the slice. */
typedef enum {
  CTX_PASS,   /* NULL, the slice's own context, or one the interposer made: use as is */
  CTX_SWAP,   /* the claim device's primary context: use the slice's context instead */
  CTX_REFUSE, /* a context the interposer cannot confine */
} ctx_kind;

ctx_kind slice_classify(CUcontext ctx);

/* The handle the program is shown for a context: the claim device's primary context for the
 * slice's own context (the program made the primary current and was given the slice instead; it
 * must see the handle it retained, as numba checks), any other unchanged. */
CUcontext slice_public(CUcontext ctx);

/* The green context behind one of the slice's contexts (its own, one made for cuCtxCreate, or
 * the claim device's primary context it stands for), or NULL. */
CUgreenCtx slice_green(CUcontext ctx);

/* The claim's device (the slice built), or -1. */
int slice_claim_device(void);

/* True for the slice's own green context. */
int slice_is_own_green(CUgreenCtx g);

/* The claim's SM count when dev is the claim's device (the slice built), else -1. */
int slice_claim_sms(CUdevice dev);

/* Records a primary context the driver handed out. */
void slice_note_primary(CUdevice dev, CUcontext ctx);

/* A new green context of the claim's groups for a program's cuCtxCreate on device dev. */
CUresult slice_create_context(CUdevice dev, CUcontext *out);

/* Destroys a context made by slice_create_context; returns 0 if ctx is not one of those. */
int slice_destroy_context(CUcontext ctx, CUresult *result);

/* The refusal every failed or unconfinable call returns; prints why unless a failure to attach
 * or to build the slice was printed already. */
CUresult slice_refuse(const char *what);

#endif
