"""The training co-tenant: a ResNet-34-shaped network trained on generated images and labels
with bf16 autocast and SGD, as long as it runs. It reports training steps per second. Ordinary
PyTorch: it knows nothing of the ensemble beside it or of smslice."""

import argparse
import signal
import sys

import torch
from torch import nn

import models
from progress import Progress


def main(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--progress-log", help="one line per step: wall-clock ns and 1")
    p.add_argument("--seed", type=int, default=11)
    o = p.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(o.seed)
    model = models.ResNet(blocks=(3, 4, 6, 3), classes=1000)
    model = model.to(device, memory_format=torch.channels_last).train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator(device=device).manual_seed(o.seed)
    images = [torch.randn(o.batch, 3, 224, 224, device=device, generator=g)
              .contiguous(memory_format=torch.channels_last) for _ in range(8)]
    labels = torch.randint(0, 1000, (8, o.batch), device=device, generator=g)
    progress = Progress(o.progress_log, "steps")
    print("trainer: ResNet-34-shaped, batch %d, bf16 autocast" % o.batch, flush=True)
    step = 0
    try:
        while True:
            x, y = images[step % 8], labels[step % 8]
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            loss.item()  # the step is done when the GPU is: time it honestly
            progress.step()
            step += 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
