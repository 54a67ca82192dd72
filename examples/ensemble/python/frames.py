"""The camera's frames: CLASSES prototype images and VARIANTS noisy copies of each, generated
from a fixed seed in pinned host memory (a camera's buffers), so every model process sees the
same frame n without sharing anything."""

import torch

import schedule


def pool(seed=1234, size=224, dtype=torch.float16, pin=True):
    """(prototypes [CLASSES,3,H,W], frames [POOL,3,H,W]) on the host."""
    g = torch.Generator().manual_seed(seed)
    # Low-frequency patterns, upsampled, so classes differ in structure, not only in noise.
    coarse = torch.rand(schedule.CLASSES, 3, 14, 14, generator=g)
    prototypes = torch.nn.functional.interpolate(coarse, size=(size, size), mode="bilinear",
                                                 align_corners=False)
    prototypes = (prototypes - 0.5) * 2.0
    noise = 0.1 * torch.randn(schedule.CLASSES, schedule.VARIANTS, 3, size, size, generator=g)
    frames = (prototypes[:, None] + noise).reshape(schedule.POOL, 3, size, size)
    prototypes, frames = prototypes.to(dtype), frames.to(dtype)
    if pin and torch.cuda.is_available():
        prototypes, frames = prototypes.pin_memory(), frames.pin_memory()
    return prototypes, frames
