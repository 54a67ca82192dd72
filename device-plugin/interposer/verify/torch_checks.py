"""Unmodified PyTorch workloads for the interposer's GPU verification (run-on-gpu.sh).

Nothing here knows about smslice: the script runs it with or without the interposer preloaded.
Each command prints one line of key=value results.
  gemm-conv          bf16 GEMM TFLOP/s, ResNet-18 (cuDNN) fp16 inference, distinct SMs
  victim N           latency of a small cuDNN conv block, N timed inferences (its cuDNN
                     algorithm timed per process unless VICTIM_CUDNN_BENCHMARK=0)
  aggressor STOP [gemm-only]  bf16 GEMMs (and 2 GiB device copies) until the file STOP exists
  serve LOG          inferences until CUDA fails or LOG.stop exists; timestamps in LOG
  fault              a kernel that writes to an illegal address
"""
import ctypes
import os
import sys
import time

import torch

PROBE = os.path.join(os.environ.get("SMSLICE_VERIFY_BUILD", "."), "libsmid_probe.so")


def distinct_sms():
    return ctypes.CDLL(PROBE).smslice_distinct_sms()


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def gemm_conv():
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    reps = 10
    start.record()
    for _ in range(reps):
        a @ b
    end.record()
    end.synchronize()
    tflops = 2 * n**3 * reps / (start.elapsed_time(end) / 1e3) / 1e12
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(weights=None).cuda().half().eval()
    x = torch.randn(8, 3, 224, 224, device="cuda", dtype=torch.half)
    times = []
    with torch.inference_mode():
        for i in range(230):
            t = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            if i >= 30:
                times.append(time.perf_counter() - t)
    p50 = percentile(times, 50)
    print(f"gemm_tflops={tflops:.1f} resnet18_b8_p50_ms={p50 * 1e3:.2f} "
          f"resnet18_img_s={8 / p50:.0f} distinct_sms={distinct_sms()}", flush=True)


def conv_block():
    # VICTIM_CUDNN_BENCHMARK=0 keeps cuDNN's heuristic choice instead of timing the algorithms in
    # each process (a timed choice can differ from process to process).
    torch.backends.cudnn.benchmark = os.environ.get("VICTIM_CUDNN_BENCHMARK", "1") != "0"
    model = torch.nn.Sequential(
        torch.nn.Conv2d(64, 64, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(64, 64, 3, padding=1)
    ).cuda().half().eval()
    return model, torch.randn(1, 64, 56, 56, device="cuda", dtype=torch.half)


def victim(samples):
    model, x = conv_block()
    times = []
    with torch.inference_mode():
        for i in range(samples + 500):
            t = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            if i >= 500:
                times.append(time.perf_counter() - t)
    print(f"p50_us={percentile(times, 50) * 1e6:.1f} p99_us={percentile(times, 99) * 1e6:.1f} "
          f"samples={samples} distinct_sms={distinct_sms()}", flush=True)


def aggressor(stop, gemm_only=False):
    n = 16384
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    src = torch.empty(2 << 30, device="cuda", dtype=torch.uint8)
    dst = torch.empty_like(src)
    steps = 0
    open(stop + ".started", "w").close()
    while not os.path.exists(stop):
        a @ b
        if not gemm_only:
            dst.copy_(src)
        torch.cuda.synchronize()
        steps += 1
    print(f"aggressor_steps={steps} distinct_sms={distinct_sms()}", flush=True)


def serve(log):
    started = time.time()
    model, x = conv_block()
    first = None
    last_note = 0.0
    with open(log, "a") as out, torch.inference_mode():
        while True:
            try:
                model(x)
                torch.cuda.synchronize()
            except RuntimeError as e:
                out.write(f"error {time.time():.4f} {str(e).splitlines()[0]}\n")
                out.flush()
                os._exit(3)
            now = time.time()
            if first is None:
                first = now
                out.write(f"first-serve {now:.4f} process-start {started:.4f}\n")
                out.flush()
            if now - last_note > 1.0:
                out.write(f"serving {now:.4f}\n")
                out.flush()
                last_note = now
                if os.path.exists(log + ".stop"):
                    return


def fault():
    torch.zeros(1, device="cuda")
    at = time.time()
    err = ctypes.CDLL(PROBE).smslice_fault()
    print(f"fault_at={at:.4f} fault_error={err}", flush=True)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "gemm-conv":
        gemm_conv()
    elif command == "victim":
        victim(int(sys.argv[2]))
    elif command == "aggressor":
        aggressor(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "gemm-only")
    elif command == "serve":
        serve(sys.argv[2])
    elif command == "fault":
        fault()
    else:
        sys.exit(f"unknown command {command}")
