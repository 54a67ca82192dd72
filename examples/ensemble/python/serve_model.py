"""One model of the ensemble as its own process: ordinary PyTorch inference, batch 1, fp16,
224x224, one frame every period, each vote sent to the voter. Nothing here knows about smslice:
in a smslice pod the slice is applied from outside the program.

Frames are released on the wall clock (schedule.py). The model copies the frame from pinned
host memory, classifies it, and sends (frame, class, latency from the frame's release). A model
that has fallen behind serves the newest frame and skips the stale ones, as a camera pipeline
would; skipped frames get no vote.
"""

import argparse
import signal
import sys
import time

import channel
import schedule


def options(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", required=True, help="resnet18, mobilenet or vit")
    p.add_argument("--voter", required=True, help="unix:/path or udp:host:port")
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--frames", type=int, default=0, help="frames to serve; 0: until stopped")
    p.add_argument("--first-frame", type=int,
                   help="the first frame to serve (all processes of a run get the same); "
                        "default: the next frame after warm-up")
    p.add_argument("--ready-file", help="created once warm (a run waits for every model)")
    p.add_argument("--start-file",
                   help="once warm, wait for this file and serve from the frame it names")
    p.add_argument("--warmup", type=int, default=100, help="inferences before serving")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--device", default="cuda")
    p.add_argument("--eager", action="store_true",
                   help="launch every layer from Python instead of replaying a CUDA graph")
    return p.parse_args(argv)


def wait_until(t_ns):
    """Sleep to just before t_ns, then spin: time.sleep alone overshoots by tens of us."""
    while True:
        left = t_ns - time.time_ns()
        if left <= 0:
            return
        if left > 500_000:
            time.sleep((left - 300_000) / 1e9)


def eager_classifier(torch, model, pool, device):
    @torch.inference_mode()
    def classify(index):
        x = pool[index:index + 1].to(device, non_blocking=True)
        return int(model(x).argmax(1).item())  # .item() waits for the GPU
    return classify


def graph_classifier(torch, model, pool, device, stream=None):
    """The usual way to serve a small batch-1 model: capture the forward pass once as a CUDA
    graph and replay it per frame, so the frame's latency is the GPU's work, not Python's.
    Everything runs on one side stream (given, or made here in the current context)."""
    s = stream or torch.cuda.Stream()
    x = torch.zeros_like(pool[:1], device=device)
    s.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode(), torch.cuda.stream(s):
        for _ in range(5):  # lets cuDNN choose its algorithms before capture
            model(x)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=s):
            out = model(x).argmax(1)

    def classify(index):
        with torch.cuda.stream(s):
            x.copy_(pool[index:index + 1], non_blocking=True)
            graph.replay()
            return int(out.item())  # .item() waits for the GPU
    return classify


def main(argv):
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    import torch  # after argument checks, so --help works without a GPU

    import frames
    import models

    o = options(argv)
    device = torch.device(o.device)
    dtype = torch.float16 if device.type == "cuda" else torch.float32
    torch.backends.cudnn.benchmark = True
    prototypes, pool = frames.pool(dtype=dtype, pin=device.type == "cuda")
    model = models.build(o.model, o.seed).to(device)
    models.calibrate(model, prototypes.to(device, torch.float32))
    model = model.to(dtype)
    mode = "eager" if o.eager or device.type != "cuda" else "CUDA graph"
    classify = (eager_classifier(torch, model, pool, device) if mode == "eager"
                else graph_classifier(torch, model, pool, device))
    period_ns = int(o.period_ms * 1e6)

    agree = sum(classify(schedule.pool_index(f)) == schedule.true_class(f)
                for f in range(schedule.POOL))
    for i in range(o.warmup):
        classify(i % schedule.POOL)
    sender = channel.Sender(o.voter)
    if o.ready_file:
        open(o.ready_file, "w").close()
    if o.first_frame is not None:
        first = o.first_frame
    elif o.start_file:
        first = schedule.wait_for_frame_number(o.start_file)
    else:
        first = schedule.latest_released(time.time_ns(), period_ns) + 1
    last = first + o.frames - 1 if o.frames > 0 else None
    print("model %s on %s (%s): %d/%d pool frames classified correctly; serving from frame %d"
          % (o.model, device, mode, agree, schedule.POOL, first), flush=True)
    frame, served, skipped = first, 0, 0
    try:
        while last is None or frame <= last:
            wait_until(schedule.release_ns(frame, period_ns))
            frame, skip = schedule.next_to_serve(frame, time.time_ns(), period_ns)
            if last is not None and frame > last:
                skipped += last + 1 - (frame - skip)
                break
            skipped += skip
            vote = classify(schedule.pool_index(frame))
            latency = time.time_ns() - schedule.release_ns(frame, period_ns)
            sender.send(channel.vote_line(o.model, frame, vote, latency))
            served += 1
            frame += 1
    except KeyboardInterrupt:
        pass
    finally:
        sender.send(channel.end_line(o.model, served, skipped))
        sender.close()
    print("model %s: served %d frames, skipped %d" % (o.model, served, skipped), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
