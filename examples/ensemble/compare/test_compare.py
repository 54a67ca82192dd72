"""Tests of the comparison's configurations and table (no GPU needed)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import claim_env  # noqa: E402
import configs  # noqa: E402
import table  # noqa: E402


class ConfigsTest(unittest.TestCase):
    def test_percentages_are_the_claims_share_rounded_up_as_smslice_sets_them(self):
        self.assertEqual(configs.mps_percent(32, 132), 25)
        self.assertEqual(configs.mps_percent(33, 132), 25)
        self.assertEqual(configs.mps_percent(36, 132), 28)
        self.assertEqual(configs.mps_percent(200, 132), 100)

    def test_each_configuration_limits_processes_its_own_way(self):
        sms = {"vit": 32}
        self.assertEqual(configs.process_env("mps", "vit", sms, 132, None), {})
        self.assertEqual(configs.process_env("mps-pct", "vit", sms, 132, None),
                         {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE": "25"})
        self.assertEqual(configs.process_env("green", "vit", sms, 132, {"vit": {"X": "1"}}),
                         {"X": "1"})
        with self.assertRaises(ValueError):
            configs.process_env("green", "vit", sms, 132, None)
        with self.assertRaises(ValueError):
            configs.process_env("nonsense", "vit", sms, 132, None)

    def test_guarded_configurations_make_the_models_latency_critical_and_the_cotenant_best_effort(
            self):
        sms = {"vit": 24, "cotenant": 60}
        claims = {"vit": {"X": "1"}, "cotenant": {"Y": "2"}}
        self.assertEqual(configs.process_env("green-copy-guard", "vit", sms, 132, claims, "/g"),
                         {"X": "1", "SMSLICE_GUARD": "/g", "SMSLICE_PRIORITY": "LatencyCritical"})
        self.assertEqual(configs.process_env("green-guard", "cotenant", sms, 132, claims, "/g"),
                         {"Y": "2", "SMSLICE_GUARD": "/g", "SMSLICE_PRIORITY": "BestEffort"})
        self.assertNotIn("SMSLICE_GUARD", configs.process_env("green", "vit", sms, 132, claims))
        with self.assertRaises(ValueError):
            configs.process_env("green-guard", "vit", sms, 132, claims)
        self.assertTrue(configs.served_by_agent("green-guard"))
        self.assertFalse(configs.served_by_agent("mps-pct"))


def run(config, n, p99, miss, rate):
    return {"config": config, "run": n, "cotenant": "train", "cotenant_rate": rate,
            "summary": {"frames": 100,
                        "models": {"resnet18": {"p50_us": 1000.0, "p99_us": p99, "max_us": 9000.0,
                                                "miss_rate": miss}},
                        "ensemble": {"miss_rate": miss}}}


class TableTest(unittest.TestCase):
    def test_ranges_over_runs_and_the_mig_row(self):
        results = {"date": "2026-12-01 03:00 UTC", "gpu": "NVIDIA H200", "gpu_sms": 132,
                   "torch": "2.11", "frames": 100, "period_ms": 5.0, "deadline_ms": 5.0,
                   "sms": {"resnet18": 32}, "cotenant_alone": {"timeslice": 130.0},
                   "runs": [run("timeslice", 1, 2000.0, 0.01, 100.0),
                            run("timeslice", 2, 2500.0, 0.02, 110.0)]}
        text = table.render(results)
        self.assertIn("| (1) time-slicing, no MPS | resnet18 | 1.00 | 2.00-2.50 | 9.00 "
                      "| 1.00%-2.00% | 1.00%-2.00% | 100.0-110.0 training steps/s "
                      "(130.0 before the ensemble started) |", text)
        self.assertIn("| (6) MIG | - |", text)
        self.assertNotIn("(2) MPS", text)
        self.assertIn("over 2 runs", text)


class ClaimEnvTest(unittest.TestCase):
    def test_each_claims_env_file_becomes_a_process_environment_with_the_interposer(self):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            Path(d, "vit.env").write_text("export SMSLICE_SOCKET=/run/a.sock\n"
                                          "export SMSLICE_TOKEN=t=1\n")
            env = claim_env.claim_env(d, "/lib/i.so", {"CUDA_MPS_PIPE_DIRECTORY": "/p"})
        self.assertEqual(env, {"vit": {"SMSLICE_SOCKET": "/run/a.sock", "SMSLICE_TOKEN": "t=1",
                                       "LD_PRELOAD": "/lib/i.so",
                                       "CUDA_MPS_PIPE_DIRECTORY": "/p"}})
        with self.assertRaises(ValueError):
            claim_env.parse_env_file("export NOVALUE")


if __name__ == "__main__":
    unittest.main()
