"""synergy.Agent without a scheduler: a pass-through, and the profiler from
Python (the managed side runs through synergyd in
tests/integration/python_jobs.sh)."""
import os
import subprocess
import sys
import textwrap
import unittest

import synergy


def standalone_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNERGY_")}
    env.update(extra)
    return env


class StandaloneAgent(unittest.TestCase):
    def setUp(self):
        self._saved = dict(os.environ)
        for k in list(os.environ):
            if k.startswith("SYNERGY_"):
                del os.environ[k]

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self._saved)

    def test_wrap_passes_every_item_through_and_counts_them(self):
        agent = synergy.Agent.from_environment()
        self.assertFalse(agent.managed)
        self.assertEqual(agent.lease.job_id, "")
        self.assertEqual((agent.start_iteration, agent.checkpoint_path), (0, ""))
        saved = []
        agent.on_checkpoint(lambda i: saved.append(i) or "")
        self.assertEqual(list(agent.wrap(["a", "b", "c"])), ["a", "b", "c"])
        self.assertEqual(agent.iteration, 3)
        agent.finish()
        self.assertEqual(saved, [], "standalone, nothing is checkpointed")
        self.assertFalse(agent.lease_ended)

    def test_on_checkpoint_works_as_a_decorator(self):
        agent = synergy.Agent.from_environment()

        @agent.on_checkpoint
        def save(iteration):
            return f"ckpt-{iteration}"

        self.assertEqual(save(4), "ckpt-4")

    def test_the_profiler_finds_a_synthetic_knee(self):
        os.environ["SYNERGY_CPUS"] = "8"
        agent = synergy.Agent.from_environment()
        calls = []

        def measure(cpus, iterations):
            calls.append((cpus, iterations))
            return 10.0 * min(cpus, 5)  # flat from 5 CPUs on

        profile = agent.profile(measure, iterations_per_point=3)
        self.assertEqual(profile.knee, 5)
        self.assertTrue(all(i == 3 for _, i in calls))
        self.assertEqual([p.cpus for p in profile.measured], [c for c, _ in calls])
        self.assertLessEqual(len(calls), 4, "a binary search over 8 CPUs measures at most 1 + log2(8) points")

    def test_a_second_pass_keeps_each_points_best_reading(self):
        os.environ["SYNERGY_CPUS"] = "4"
        agent = synergy.Agent.from_environment()
        calls = []

        def measure(cpus, iterations):
            calls.append(cpus)
            slow = 0.7 if 2 <= len(calls) <= 3 else 1.0  # a slow spell after the first reading
            return slow * 10.0 * min(cpus, 3)

        profile = agent.profile(measure, iterations_per_point=3, passes=2)
        self.assertEqual(profile.knee, 3)
        self.assertEqual(len(calls), 2 * len(profile.measured))
        self.assertEqual(sorted(p.throughput for p in profile.measured), [20.0, 30.0, 30.0])

    def test_an_exception_in_measure_reaches_the_caller(self):
        os.environ["SYNERGY_CPUS"] = "2"
        agent = synergy.Agent.from_environment()

        def measure(cpus, iterations):
            raise RuntimeError("the data pipeline broke")

        with self.assertRaisesRegex(RuntimeError, "the data pipeline broke"):
            agent.profile(measure)

    def test_bad_arguments_are_refused_with_their_name(self):
        with self.assertRaisesRegex(ValueError, "report_interval_ms: 0"):
            synergy.Agent.from_environment(report_interval_ms=0)
        agent = synergy.Agent.from_environment()
        with self.assertRaisesRegex(ValueError, "threshold: 1.5"):
            agent.profile(lambda c, i: 1.0, threshold=1.5)
        with self.assertRaisesRegex(ValueError, "passes: 0"):
            agent.profile(lambda c, i: 1.0, passes=0)

    def test_a_script_runs_the_same_without_a_scheduler(self):
        script = textwrap.dedent(
            """
            import synergy
            agent = synergy.Agent.from_environment()
            total = sum(x for x in agent.wrap(range(100)))
            agent.finish()
            print(total, agent.iteration, agent.managed)
            """
        )
        out = subprocess.run(
            [sys.executable, "-c", script], env=standalone_env(PYTHONPATH=os.environ.get("PYTHONPATH", "")),
            capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.split(), ["4950", "100", "False"])


if __name__ == "__main__":
    unittest.main()
