"""The configurations the comparison runs, and the environment each process gets in them.

Every configuration runs the same three model processes, the same voter and one co-tenant; they
differ only in how the GPU is shared: the driver's time-slicing, one MPS server without limits,
MPS active-thread percentages (what a smslice Shared claim sets), or transparent green slices
(what a smslice Compute claim gives an unmodified program: the interposer, confined to the SM
groups the node agent chose), and green slices with the interference guard on (the models
latency-critical, the co-tenant best-effort, as the node sets them for claims of those
priorities; docs/interference-guard.md). The green ones need an environment per process from
outside (the agent's claims), which comes in a JSON file, and the guarded ones the guard's file.
"""

import math

MODELS = ("resnet18", "mobilenet", "vit")

# name -> (title, uses MPS, co-tenant, how each process is limited)
CONFIGS = {
    "alone": ("ensemble alone, time-sliced (no co-tenant)", False, None, None),
    "timeslice": ("(1) time-slicing, no MPS", False, "train", None),
    "mps": ("(2) MPS, no limits", True, "train", None),
    "mps-pct": ("(3) MPS percentages (smslice Shared claims)", True, "train", "percent"),
    "green": ("(4) transparent green slices (smslice Compute claims)", True, "train", "claims"),
    "green-copy": ("(5) as (4), memory-bandwidth co-tenant", True, "copy", "claims"),
    "green-guard": ("(4g) as (4), interference guard on", True, "train", "guarded claims"),
    "green-copy-guard": ("(5g) as (5), interference guard on", True, "copy", "guarded claims"),
}

# The priorities the guard reads (SMSLICE_PRIORITY), as the node sets them from the claims.
LATENCY_CRITICAL, BEST_EFFORT = "LatencyCritical", "BestEffort"

MIG_ROW = ("(6) MIG", "not run: MIG mode is disabled on the H200 GPU machine and is never "
           "changed there; see below")


def mps_percent(sms, gpu_sms):
    """As a smslice Shared claim sets CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: the claim's share of
    the GPU's SMs in percent, rounded up."""
    return max(1, min(100, math.ceil(100.0 * sms / gpu_sms)))


def served_by_agent(config):
    """Whether the configuration's processes run in claims of the node agent, which brings its
    own MPS daemon."""
    return CONFIGS[config][3] in ("claims", "guarded claims")


def process_env(config, role, sms, gpu_sms, claim_env, guard_file=None):
    """Extra environment for one process (a model name or 'cotenant') in a configuration.

    sms: role -> SMs of its claim. claim_env: role -> environment from the agent's claims, for
    the green configurations (None otherwise). guard_file: the GPU's guard file, for the guarded
    ones."""
    if config not in CONFIGS:
        raise ValueError("unknown configuration %r; choose from %s" % (config, ", ".join(CONFIGS)))
    limit = CONFIGS[config][3]
    if limit is None:
        return {}
    if limit == "percent":
        return {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": str(mps_percent(sms[role], gpu_sms))}
    if not claim_env or role not in claim_env:
        raise ValueError("configuration %s needs the environment of %s's claim (--claim-env)"
                         % (config, role))
    env = dict(claim_env[role])
    if limit == "guarded claims":
        if not guard_file:
            raise ValueError("configuration %s needs the guard's file (--guard-file)" % config)
        env["SMSLICE_GUARD"] = guard_file
        env["SMSLICE_PRIORITY"] = BEST_EFFORT if role == "cotenant" else LATENCY_CRITICAL
    return env
