"""The cluster side of size_model.py's sweep: per slice size a SliceClaim and a Job whose pod
names it, run one after another so that each measures alone, and the Job's JSON line read back
from its log. The sizing tool reaches the pods as a ConfigMap mounted at /smslice-sizing, so the
user's image needs only python3 and torch; their model is a path inside that image.
"""

import json
import subprocess
from typing import NamedTuple

MOUNT = "/smslice-sizing"
# what size_model.py imports, from this folder and the ensemble's
TOOL = ["size_model.py", "load_model.py", "cluster_sweep.py", "curve_svg.py"]
SHARED = ["size_slice.py", "stats.py", "schedule.py"]


class SweepError(RuntimeError):
    """A sweep step that failed; the message says which size and why."""


def parse_sizes(text):
    try:
        sizes = sorted({int(s) for s in text.split(",") if s.strip()})
    except ValueError:
        raise SweepError("--sizes %r: write SM counts such as 8,16,24,32" % text)
    if not sizes or sizes[0] < 1:
        raise SweepError("--sizes %r: at least one SM count, each at least 1" % text)
    return sizes


def tool_files(here):
    """name -> text of every file the pods need."""
    paths = [here / n for n in TOOL] + [here.parent / "ensemble" / "python" / n for n in SHARED]
    return {p.name: p.read_text() for p in paths}


class Plan(NamedTuple):
    namespace: str
    image: str
    model: str
    input_shape: str
    precision: str
    memory: str
    period_ms: float
    frames: int
    node: str
    prefix: str

    def name(self, sms):
        return "%s-%d" % (self.prefix, sms)

    def configmap_name(self):
        return self.prefix + "-tool"

    def configmap(self, files):
        return {"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": self.configmap_name(), "namespace": self.namespace},
                "data": files}

    def claim(self, sms):
        spec = {"sms": sms, "memory": self.memory, "isolation": "Compute"}
        if self.node:
            spec["selector"] = {"nodeLabels": {"kubernetes.io/hostname": self.node}}
        return {"apiVersion": "smslice.io/v1alpha1", "kind": "SliceClaim",
                "metadata": {"name": self.name(sms), "namespace": self.namespace},
                "spec": spec}

    def job(self, sms):
        args = ["python3", MOUNT + "/size_model.py", "measure", "--model", self.model,
                "--sms", str(sms), "--precision", self.precision,
                "--period-ms", str(self.period_ms), "--frames", str(self.frames)]
        if self.input_shape:
            args += ["--input-shape", self.input_shape]
        pod = {
            "metadata": {"annotations": {"smslice.io/claim": self.name(sms)}},
            "spec": {
                "restartPolicy": "Never",
                "runtimeClassName": "nvidia",
                "containers": [{"name": "measure", "image": self.image, "command": args,
                                "env": [{"name": "PYTHONUNBUFFERED", "value": "1"}],
                                "volumeMounts": [{"name": "tool", "mountPath": MOUNT}]}],
                "volumes": [{"name": "tool",
                             "configMap": {"name": self.configmap_name()}}],
            },
        }
        return {"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": self.name(sms), "namespace": self.namespace},
                "spec": {"backoffLimit": 0, "template": pod}}


class Kubectl:
    def __init__(self, namespace, binary="kubectl"):
        self.namespace = namespace
        self.binary = binary

    def run(self, *args, input_text=None):
        r = subprocess.run([self.binary, "-n", self.namespace, *args], input=input_text,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SweepError("kubectl %s: %s" % (" ".join(args), (r.stderr or r.stdout).strip()))
        return r.stdout

    def apply(self, obj):
        self.run("apply", "-f", "-", input_text=json.dumps(obj))

    def delete(self, kind, name):
        self.run("delete", kind, name, "--ignore-not-found", "--wait=false")


def measure_one(kubectl, plan, sms, timeout_s):
    """Runs one size's claim and Job to completion; returns the Job's JSON row."""
    name = plan.name(sms)
    kubectl.apply(plan.claim(sms))
    try:
        kubectl.run("wait", "--for=condition=Ready", "sliceclaim/" + name,
                    "--timeout=%ds" % timeout_s)
        kubectl.apply(plan.job(sms))
        try:
            kubectl.run("wait", "--for=condition=complete", "job/" + name,
                        "--timeout=%ds" % timeout_s)
        except SweepError as e:
            log = kubectl.run("logs", "job/" + name, "--tail=20") if _has_pod(kubectl, name) else ""
            raise SweepError("%d SMs: the Job did not complete (%s)\n%s" % (sms, e, log))
        return row_from_log(kubectl.run("logs", "job/" + name), sms)
    finally:
        kubectl.delete("job", name)
        kubectl.delete("sliceclaim", name)


def _has_pod(kubectl, name):
    try:
        return bool(kubectl.run("get", "pods", "-l", "job-name=" + name, "-o", "name").strip())
    except SweepError:
        return False


def row_from_log(log, sms):
    """The last JSON line of a measure run's log."""
    rows = [line for line in log.splitlines() if line.strip().startswith("{")]
    if not rows:
        raise SweepError("%d SMs: no measurement in the Job's log:\n%s" % (sms, log[-2000:]))
    return json.loads(rows[-1])
