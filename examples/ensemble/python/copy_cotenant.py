"""The memory-bandwidth co-tenant: device-to-device copies of a large buffer, back to back, as
long as it runs. It reports GB/s moved (bytes read plus bytes written). Copies use the SMs
only to move data: what they take from neighbours is HBM bandwidth and L2, which SM slices do
not partition."""

import argparse
import signal
import sys

import torch

from progress import Progress


def main(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gib", type=float, default=2.0, help="size of each of the two buffers")
    p.add_argument("--progress-log", help="one line per copy: wall-clock ns and GB moved")
    o = p.parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    n = int(o.gib * (1 << 30))
    src = torch.empty(n, dtype=torch.uint8, device="cuda").random_(0, 255)
    dst = torch.empty_like(src)
    gb = 2 * n / 1e9
    progress = Progress(o.progress_log, "GB")
    print("copier: %.1f GiB device-to-device copies" % o.gib, flush=True)
    try:
        while True:
            dst.copy_(src)
            torch.cuda.synchronize()
            progress.step(gb)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
