"""Tests of the sizing tool's parts that need no GPU and no torch: model specs, shapes, the
report and its choice on the committed H200 rows, the picture, the cluster sweep against a
stand-in kubectl, and that the ConfigMap carries every module the tool imports."""

import ast
import json
import os
import stat
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cluster_sweep  # noqa: E402
import curve_svg  # noqa: E402
import load_model  # noqa: E402
import size_model  # noqa: E402

H200_ROWS = HERE.parent / "ensemble/compare/results/2026-12-01-h200-size/size-rows.jsonl"


class ModelSpecTest(unittest.TestCase):
    def test_each_form_of_spec_is_recognised(self):
        with tempfile.TemporaryDirectory() as d:
            for ext, kind in ((".pt", "torchscript"), (".pt2", "exported"), (".onnx", "onnx")):
                f = os.path.join(d, "m" + ext)
                Path(f).write_bytes(b"")
                self.assertEqual(load_model.kind_of(f), (kind, f))
        self.assertEqual(load_model.kind_of("torchvision:efficientnet_b0"),
                         ("torchvision", "efficientnet_b0"))
        self.assertEqual(load_model.kind_of("my_model.py:build"), ("entry", ("my_model.py", "build")))
        self.assertEqual(load_model.kind_of("pkg.models:build"), ("entry", ("pkg.models", "build")))

    def test_a_bad_spec_says_what_is_accepted(self):
        with self.assertRaisesRegex(load_model.ModelSpecError, "no such file"):
            load_model.kind_of("/nowhere/model.onnx")
        with self.assertRaisesRegex(load_model.ModelSpecError, "TorchScript"):
            load_model.kind_of("resnet")
        with self.assertRaisesRegex(load_model.ModelSpecError, "torchvision model name"):
            load_model.kind_of("torchvision:not a name")

    def test_shapes(self):
        self.assertEqual(load_model.parse_shapes("1x3x224x224"), [(1, 3, 224, 224)])
        self.assertEqual(load_model.parse_shapes("1x128, 1X128"), [(1, 128), (1, 128)])
        self.assertEqual(load_model.parse_shapes(None), [])
        for bad in ("1x3xa", "1x0"):
            with self.assertRaises(load_model.ModelSpecError):
                load_model.parse_shapes(bad)

    def test_an_entry_point_is_called_from_its_file(self):
        with tempfile.TemporaryDirectory() as d:
            f = Path(d, "mine.py")
            f.write_text("def build():\n    return (lambda x: x, [1])\n"
                         "def broken():\n    return 3\n")
            model, inputs = load_model.load_entry(str(f), "build")
            self.assertEqual((model(2), inputs), (2, (1,)))
            with self.assertRaisesRegex(load_model.ModelSpecError, "must return"):
                load_model.load_entry(str(f), "broken")
            with self.assertRaisesRegex(load_model.ModelSpecError, "has no function"):
                load_model.load_entry(str(f), "absent")


def h200_rows():
    return [json.loads(line) for line in H200_ROWS.read_text().splitlines() if line.strip()]


class ReportTest(unittest.TestCase):
    def test_the_committed_h200_rows_give_the_smallest_slice_per_deadline(self):
        rows = h200_rows()
        five = size_model.report_text(rows, 5.0, 5.0)
        self.assertIn("claim: spec.sms: 8 ", five)
        one = size_model.report_text([r for r in rows if r["model"] == "resnet18"], 1.0, 5.0)
        self.assertIn("| 24 | 846.3 | 994.0 |", one)  # the first size with p99 <= 1000 us
        self.assertIn("claim: spec.sms: 24 ", one)
        none = size_model.report_text(rows, 0.5, 5.0)
        self.assertIn("no measured size meets 0.50 ms", none)

    def test_the_period_bounds_the_choice_too(self):
        rows = [r for r in h200_rows() if r["model"] == "vit"]
        self.assertIn("claim: spec.sms: 24 ", size_model.report_text(rows, 5.0, 0.9))

    def test_the_picture_is_svg_with_a_line_per_model_and_the_deadline(self):
        svg = curve_svg.draw(h200_rows(), 1.0)
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        self.assertEqual(len(root.findall(ns + "polyline")), 6)  # p99 and p50 of three models
        self.assertEqual(len(root.findall(ns + "circle")), 18)  # six sizes each
        self.assertIn("deadline 1 ms", svg)
        self.assertIn("square: whole GPU", svg)
        with self.assertRaises(ValueError):
            curve_svg.draw([{"model": "m", "sms": "all", "p99_us": 1.0}], 1.0)


PLAN = cluster_sweep.Plan(namespace="ml", image="registry/me/model:1", model="/models/m.pt",
                          input_shape="1x3x224x224", precision="float16", memory="4Gi",
                          period_ms=5.0, frames=200, node=None, prefix="sizing")


class SweepTest(unittest.TestCase):
    def test_claim_and_job_of_one_size(self):
        claim = PLAN.claim(16)
        self.assertEqual(claim["spec"], {"sms": 16, "memory": "4Gi", "isolation": "Compute"})
        job = PLAN.job(16)
        pod = job["spec"]["template"]
        self.assertEqual(pod["metadata"]["annotations"], {"smslice.io/claim": "sizing-16"})
        cmd = pod["spec"]["containers"][0]["command"]
        self.assertEqual(cmd[:3], ["python3", "/smslice-sizing/size_model.py", "measure"])
        self.assertIn("--input-shape", cmd)
        self.assertEqual(job["spec"]["backoffLimit"], 0)
        pinned = PLAN._replace(node="gpu-7").claim(8)
        self.assertEqual(pinned["spec"]["selector"],
                         {"nodeLabels": {"kubernetes.io/hostname": "gpu-7"}})

    def test_sizes(self):
        self.assertEqual(cluster_sweep.parse_sizes("32,8,16,8"), [8, 16, 32])
        for bad in ("", "8,x", "0,8"):
            with self.assertRaises(cluster_sweep.SweepError):
                cluster_sweep.parse_sizes(bad)

    def test_the_configmap_carries_every_module_the_tool_imports(self):
        files = cluster_sweep.tool_files(HERE)
        local = {p.stem for p in HERE.glob("*.py")} | {
            p.stem for p in (HERE.parent / "ensemble/python").glob("*.py")}
        for name in list(files):
            tree = ast.parse(files[name])
            # the tool's own files wholly; the ensemble's at the top only (size_slice's measure
            # imports the bundled models, which the tool never calls)
            nodes = ast.walk(tree) if name in cluster_sweep.TOOL else tree.body
            for node in nodes:
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module] if isinstance(node, ast.ImportFrom) else [])
                for n in names:
                    if n in local:
                        self.assertIn(n + ".py", set(files), "%s imports %s" % (name, n))

    def test_a_sweep_runs_each_size_alone_and_reports(self):
        with tempfile.TemporaryDirectory() as d:
            calls = Path(d, "calls")
            kubectl = Path(d, "kubectl")
            # a stand-in kubectl: records its arguments; 'logs' answers with a measured row whose
            # p99 falls with the job's SM count (taken from the job's name)
            kubectl.write_text(
                "#!/bin/sh\n"
                "echo \"$*\" >> %s\n"
                "case \"$3\" in logs) n=${4##*-}; echo noise; "
                "echo '{\"model\": \"m\", \"sms\": '$n', \"gpu\": \"G\", \"p50_us\": 1, "
                "\"p99_us\": '$((8000 / n))', \"max_us\": 1, \"count\": 200}';; esac\n" % calls)
            kubectl.chmod(kubectl.stat().st_mode | stat.S_IEXEC)
            out = Path(d, "out")
            code = size_model.main(["sweep", "--image", "i", "--model", "/m.pt",
                                    "--deadline-ms", "0.5", "--sizes", "8,16,32",
                                    "--namespace", "ml", "--out", str(out),
                                    "--kubectl", str(kubectl)])
            self.assertEqual(code, 0)
            log = calls.read_text().splitlines()
            verbs = [line.split()[2] + (" " + line.split()[3] if line.split()[2] in
                                        ("wait", "delete", "logs") else "") for line in log]
            self.assertEqual(verbs[0], "apply")  # the ConfigMap first
            per_size = ["apply", "wait --for=condition=Ready", "apply",
                        "wait --for=condition=complete", "logs job/sizing-%d",
                        "delete job", "delete sliceclaim"]
            expected = ["apply"]
            for n in (8, 16, 32):
                expected += [v % n if "%d" in v else v for v in per_size]
            expected.append("delete configmap")
            self.assertEqual(verbs, expected)
            self.assertIn("claim: spec.sms: 16 ", (out / "report.md").read_text())  # 500 us
            ET.fromstring((out / "p99.svg").read_text())
            self.assertEqual(len((out / "rows.jsonl").read_text().splitlines()), 3)

    def test_a_job_that_fails_names_its_size(self):
        with tempfile.TemporaryDirectory() as d:
            kubectl = Path(d, "kubectl")
            kubectl.write_text("#!/bin/sh\ncase \"$3 $4\" in 'wait --for=condition=complete') "
                               "echo 'timed out' >&2; exit 1;; esac\n")
            kubectl.chmod(kubectl.stat().st_mode | stat.S_IEXEC)
            with self.assertRaisesRegex(cluster_sweep.SweepError, "^8 SMs: the Job did not"):
                cluster_sweep.measure_one(cluster_sweep.Kubectl("ml", str(kubectl)), PLAN, 8, 5)


class StreamTorch:
    """Stands in for torch's CUDA streams and graphs: it records the stream each graph replay is
    launched on (torch launches a replay on the current stream) and each stream waited for."""

    def __init__(self):
        self.current, self.replayed_on, self.synchronized = "default", [], []
        torch = self

        class Stream:
            def wait_stream(self, other):
                pass

            def synchronize(self):
                torch.synchronized.append(self)

        class CUDAGraph:
            def replay(self):
                torch.replayed_on.append(torch.current)

        class Cuda:
            pass
        self.cuda = Cuda()
        self.cuda.Stream, self.cuda.CUDAGraph = Stream, CUDAGraph
        self.cuda.current_stream = lambda: self.current
        self.cuda.stream = self._use
        self.cuda.graph = lambda g, stream: self._use(stream)
        self.cuda.synchronize = lambda: None
        self.inference_mode = lambda: self._use(self.current)

    def _use(self, stream):
        torch, before = self, self.current

        class Use:
            def __enter__(self):
                torch.current = stream

            def __exit__(self, *exc):
                torch.current = before
        return Use()


class TorchStepTest(unittest.TestCase):
    def test_a_graph_step_waits_for_the_replay_it_launched(self):
        torch = StreamTorch()
        run_once, how = load_model._torch_step(torch, lambda *x: None, (), graph=True)
        self.assertEqual(how, "torch, CUDA graph")
        run_once()
        self.assertEqual(len(torch.replayed_on), 1)
        # the step's time must include the graph's work: it waits for the stream it launched on
        self.assertIs(torch.synchronized[-1], torch.replayed_on[0])


if __name__ == "__main__":
    unittest.main()
