"""The environment of each process in the green configurations, as JSON for run_compare.py's
--claim-env: what the device plugin gives a pod of a Compute claim (the claim's socket, name and
token, written by the agent as <dir>/<claim>.env), the interposer preloaded, and the MPS
daemon's directories.

  python3 claim_env.py AGENT_ENV_DIR LIBSMSLICE_INTERPOSER > claim-env.json
"""

import json
import os
import sys
from pathlib import Path


def parse_env_file(text):
    env = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export "):]
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise ValueError("not KEY=value: %r" % line)
        env[key] = value
    return env


def claim_env(env_dir, interposer, environ):
    out = {}
    for f in sorted(Path(env_dir).glob("*.env")):
        env = parse_env_file(f.read_text())
        env["LD_PRELOAD"] = str(interposer)
        for k in ("CUDA_MPS_PIPE_DIRECTORY", "CUDA_MPS_LOG_DIRECTORY", "LD_LIBRARY_PATH"):
            if k in environ:
                env[k] = environ[k]
        out[f.stem] = env
    if not out:
        raise SystemExit("no <claim>.env files in %s" % env_dir)
    return out


if __name__ == "__main__":
    print(json.dumps(claim_env(sys.argv[1], sys.argv[2], os.environ), indent=1))
