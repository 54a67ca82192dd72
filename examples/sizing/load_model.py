"""Turns a model given on the command line into one inference step on the GPU, whatever form it
comes in. A model spec is one of:

  path/model.pt or .ts     TorchScript (torch.jit.save); needs --input-shape
  path/model.pt2           an ExportedProgram (torch.export.save); needs --input-shape
  path/model.onnx          ONNX, run by ONNX Runtime's CUDA provider; shapes from the file, or
                           --input-shape where the file leaves a dimension open
  torchvision:NAME         a torchvision classifier built without weights (random weights time
                           the same), input 1x3x224x224 unless --input-shape says otherwise
  module.py:function       your own Python: function() returns (model, example_inputs), a
  pkg.module:function      callable and the tuple of tensors one inference takes

A step runs one inference and returns once its result is on the host, so its wall time is the
service time a client sees.
"""

import importlib
import importlib.util
import os
import sys

FILE_KINDS = {".pt": "torchscript", ".ts": "torchscript", ".pt2": "exported", ".onnx": "onnx"}
PRECISIONS = ("float32", "float16", "bfloat16")


class ModelSpecError(ValueError):
    """A spec that names no model this tool can load; the message says what it accepts."""


def kind_of(spec):
    """(kind, target) for a spec; raises ModelSpecError with the accepted forms."""
    if spec.startswith("torchvision:"):
        name = spec.split(":", 1)[1]
        if not name.isidentifier():
            raise ModelSpecError("torchvision:%s: write a torchvision model name such as "
                                 "torchvision:efficientnet_b0" % name)
        return "torchvision", name
    ext = os.path.splitext(spec)[1].lower()
    if ext in FILE_KINDS:
        if not os.path.isfile(spec):
            raise ModelSpecError("%s: no such file" % spec)
        return FILE_KINDS[ext], spec
    module, sep, function = spec.rpartition(":")
    if sep and module and function.isidentifier():
        return "entry", (module, function)
    raise ModelSpecError(
        "%r is not a model spec: give a .pt/.ts (TorchScript), .pt2 (ExportedProgram) or .onnx "
        "file, torchvision:NAME, or module:function returning (model, example_inputs)" % spec)


def parse_shapes(text):
    """'1x3x224x224' or '1x128,1x128' (one shape per input) -> [(1, 3, 224, 224)] ..."""
    if not text:
        return []
    shapes = []
    for part in text.split(","):
        try:
            dims = tuple(int(d) for d in part.strip().lower().split("x"))
        except ValueError:
            raise ModelSpecError("input shape %r: write dimensions as 1x3x224x224" % part)
        if not dims or any(d < 1 for d in dims):
            raise ModelSpecError("input shape %r: every dimension must be at least 1" % part)
        shapes.append(dims)
    return shapes


def load_entry(module, function):
    """Calls module:function, where module is a file path (x.py) or an importable name."""
    if module.endswith(".py"):
        path = os.path.abspath(module)
        if not os.path.isfile(path):
            raise ModelSpecError("%s: no such file" % module)
        sys.path.insert(0, os.path.dirname(path))
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        mod = importlib.import_module(module)
    fn = getattr(mod, function, None)
    if fn is None:
        raise ModelSpecError("%s has no function %s" % (module, function))
    result = fn()
    if not (isinstance(result, tuple) and len(result) == 2 and callable(result[0])):
        raise ModelSpecError("%s:%s must return (model, example_inputs)" % (module, function))
    model, inputs = result
    return model, tuple(inputs) if isinstance(inputs, (list, tuple)) else (inputs,)


def step(spec, shapes, precision, graph):
    """(run_once, description): run_once() does one inference and waits for its result."""
    kind, target = kind_of(spec)
    if precision not in PRECISIONS:
        raise ModelSpecError("precision %r: one of %s" % (precision, ", ".join(PRECISIONS)))
    if kind == "onnx":
        return _onnx_step(target, shapes), "onnx"
    import torch
    dtype = getattr(torch, precision)
    if kind == "torchvision":
        import torchvision
        builder = getattr(torchvision.models, target, None)
        if builder is None:
            raise ModelSpecError("torchvision has no model %s" % target)
        model = builder(weights=None)
        inputs = tuple(torch.randn(s) for s in (shapes or [(1, 3, 224, 224)]))
    elif kind == "entry":
        model, inputs = load_entry(*target)
    else:
        if not shapes:
            raise ModelSpecError("%s: a %s file does not record its input shape; give "
                                 "--input-shape" % (target, kind))
        model = (torch.jit.load(target) if kind == "torchscript"
                 else torch.export.load(target).module())
        inputs = tuple(torch.randn(s) for s in shapes)
    device = torch.device("cuda")
    if hasattr(model, "to"):
        model = model.to(device)
        if hasattr(model, "eval"):
            model.eval()
        if precision != "float32":
            model = model.to(dtype)
    inputs = tuple(t.to(device, dtype) if t.is_floating_point() else t.to(device) for t in inputs)
    return _torch_step(torch, model, inputs, graph)


def _torch_step(torch, model, inputs, graph):
    """One forward pass, as a CUDA graph replay where the model can be captured (the usual way to
    serve a small-batch model), else eagerly; the description says which."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode(), torch.cuda.stream(s):
        for _ in range(5):  # warm-up: cuDNN picks its algorithms, lazy modules load
            model(*inputs)
        s.synchronize()
        if graph:
            try:
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=s):
                    model(*inputs)

                def replay():
                    with torch.cuda.stream(s):  # a replay runs on the current stream
                        g.replay()
                    s.synchronize()
                return replay, "torch, CUDA graph"
            except Exception as e:  # not capturable (host sync, dynamic shapes): run it eagerly
                print("CUDA graph capture failed (%s); timing eager runs" % e, file=sys.stderr)
                torch.cuda.synchronize()

    def eager():
        with torch.inference_mode(), torch.cuda.stream(s):
            model(*inputs)
        s.synchronize()
    return eager, "torch, eager"


def _onnx_step(path, shapes):
    import numpy
    import onnxruntime
    session = onnxruntime.InferenceSession(path, providers=["CUDAExecutionProvider"])
    if "CUDAExecutionProvider" not in session.get_providers():
        raise ModelSpecError("ONNX Runtime has no CUDA provider here (install onnxruntime-gpu)")
    feeds = {}
    for i, arg in enumerate(session.get_inputs()):
        shape = shapes[i] if i < len(shapes) else tuple(
            d if isinstance(d, int) and d > 0 else None for d in arg.shape)
        if None in shape:
            raise ModelSpecError("input %s has open dimensions %s: give --input-shape"
                                 % (arg.name, arg.shape))
        dtype = numpy.float16 if "float16" in arg.type else numpy.float32
        feeds[arg.name] = numpy.random.rand(*shape).astype(dtype)
    for _ in range(5):
        session.run(None, feeds)

    def run_once():
        session.run(None, feeds)  # returns host arrays: the copy back is part of the time
    return run_once
