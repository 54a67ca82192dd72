/* A program's own green contexts (torch.cuda.green_contexts, SGLang, FlashInfer, the CUDA 13.1
 * execution-context API) inside its slice: the claim device's SM resource it is shown is the
 * slice's, and only descriptors built from that resource, or from splits of it, make green
 * contexts. Anything else (another device's SMs, a resource the program made or got past the
 * interposer) is refused. */
#ifndef SMSLICE_PROGRAM_GREEN_H
#define SMSLICE_PROGRAM_GREEN_H

#include "cuda_driver.h"

/* True for the context of a green context the program made inside its slice. */
int program_green_owns(CUcontext ctx);

#endif
