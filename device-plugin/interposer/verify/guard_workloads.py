"""Unmodified PyTorch workloads for the interference guard's GPU measurement (run-guard-on-gpu.sh).

Nothing here knows about smslice: the script runs them with or without the interposer and the
guard's variables. Times are GPU times from CUDA events unless named wall.
  victim FRAMES PHASES CONTROL [PERIOD_MS]
      ResNet-18 fp16 batch 8 (channels-last) replayed from a CUDA graph, one frame every PERIOD_MS
      (5; 0 = back to back), each replay timed by CUDA events. Runs PHASES phases of FRAMES frames;
      before phase k it waits for CONTROL/go-k, after it prints one key=value line and creates
      CONTROL/done-k, so the script can change the guard between phases of one process, and
      CONTROL/frames-k: each frame's host start (s), GPU time and wall time (ms).
  neighbour KIND STOP LOG
      A best-effort job until the file STOP exists, synchronising only every few steps (as training
      loops do when they read the loss): every synchronisation appends "monotonic_s wall_s steps
      process_cpu_s main_thread_cpu_s" to LOG.
      KIND: train (ResNet-50 batch 64, bf16 autocast, channels-last, SGD), copy (256 MiB device
      copies), gemm-long (bf16 16384^3 GEMMs, ~15 ms kernels).
"""
import os
import sys
import time

import torch


def percentile(samples, p):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.01)


def victim(frames, phases, control, period_ms):
    import torchvision

    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet18(weights=None).cuda().half().eval()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(8, 3, 224, 224, device="cuda", dtype=torch.half).to(
        memory_format=torch.channels_last)
    stream = torch.cuda.Stream()
    with torch.inference_mode(), torch.cuda.stream(stream):
        for _ in range(20):
            model(x)
        stream.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            y = model(x)
        for _ in range(50):
            graph.replay()
        stream.synchronize()
    del y
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    print("victim-ready", flush=True)
    for phase in range(phases):
        wait_for(os.path.join(control, f"go-{phase}"))
        gpu, wall, at = [], [], []
        began = time.time()
        tick = time.perf_counter()
        with torch.cuda.stream(stream):
            for _ in range(frames):
                if period_ms > 0:
                    tick += period_ms / 1e3
                t0 = time.perf_counter()
                at.append(t0)
                start.record(stream)
                graph.replay()
                end.record(stream)
                end.synchronize()
                wall.append(time.perf_counter() - t0)
                gpu.append(start.elapsed_time(end))
                if period_ms > 0:
                    left = tick - time.perf_counter()
                    if left > 0:
                        time.sleep(left)
                    else:
                        tick = time.perf_counter()
        ended = time.time()
        # Each frame: its host start (s after the phase began), GPU time and host wall time (ms),
        # so that a tail can be told apart from a shift of every frame.
        with open(os.path.join(control, f"frames-{phase}"), "w") as out:
            for t, g, w in zip(at, gpu, wall):
                out.write(f"{t - at[0]:.6f} {g:.4f} {w * 1e3:.4f}\n")
        print(f"phase={phase} frames={frames} start={began:.3f} end={ended:.3f} "
              f"p50_ms={percentile(gpu, 50):.4f} p99_ms={percentile(gpu, 99):.4f} "
              f"p999_ms={percentile(gpu, 99.9):.4f} max_ms={max(gpu):.4f} "
              f"mean_ms={sum(gpu) / len(gpu):.4f} wall_p50_ms={percentile(wall, 50) * 1e3:.4f} "
              f"wall_p99_ms={percentile(wall, 99) * 1e3:.4f}", flush=True)
        open(os.path.join(control, f"done-{phase}"), "w").close()


def neighbour(kind, stop, log):
    every = 10
    if kind == "train":
        import torchvision

        torch.backends.cudnn.benchmark = True
        model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
        target = torch.randint(0, 1000, (64,), device="cuda")
        loss_fn = torch.nn.CrossEntropyLoss()

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(model(x), target)
            loss.backward()  # bf16 needs no loss scaling (a scaler would synchronise each step)
            opt.step()
            return loss
    elif kind == "copy":
        src = torch.empty(256 << 20, device="cuda", dtype=torch.uint8)
        dst = torch.empty_like(src)
        every = 50

        def step():
            dst.copy_(src)
            return None
    elif kind == "gemm-long":
        n = 16384
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        every = 4

        def step():
            return a @ b
    else:
        sys.exit(f"unknown neighbour {kind}")
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    open(stop + ".started", "w").close()
    steps = 0
    with open(log, "w") as out:
        while not os.path.exists(stop):
            for _ in range(every):
                result = step()
            if kind == "train":
                result.item()  # the loss, read as a training loop logs it
            else:
                torch.cuda.synchronize()
            steps += every
            # CPU seconds of the process (all threads) and of this, the launching thread.
            out.write(f"{time.monotonic():.4f} {time.time():.4f} {steps} "
                      f"{time.process_time():.4f} {time.thread_time():.4f}\n")
            out.flush()


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "victim":
        victim(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4],
               float(sys.argv[5]) if len(sys.argv) > 5 else 5.0)
    elif command == "neighbour":
        neighbour(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(f"unknown command {command}")
