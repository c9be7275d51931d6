"""The image example's stand-in model and its calibration (what
scripts/demo-examples relies on to make the job CPU-sensitive past its
share on any machine). Training under synergyd is in
tests/integration/python_jobs.sh."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

try:
    import torchvision  # noqa: F401
except ImportError:  # Debian's python3-torchvision is not installed
    torchvision = None

IMAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "image_train.py")


def image_train(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNERGY_")}
    return subprocess.run([sys.executable, IMAGE, *args], capture_output=True, text=True, env=env, timeout=240)


@unittest.skipIf(torchvision is None, "python3-torchvision is not installed")
class ImageExample(unittest.TestCase):
    def test_calibration_gives_more_work_per_sample_to_more_cores(self):
        # Four times the CPU time for the same step: the samples may cost
        # about four times as much (timed as the fastest of several runs,
        # so that load from other tests does not turn the order around).
        works = []
        for cores in ("1", "4"):
            out = image_train("--model", "small-cnn", "--gpu-ms", "60", "--calibrate", cores)
            self.assertEqual(out.returncode, 0, out.stderr)
            works.append(int(out.stdout.strip()))
            self.assertIn(f"{cores} cores feed a 60 ms step at --work {works[-1]}", out.stderr)
        self.assertGreaterEqual(works[0], 1)
        self.assertGreater(works[1], 2 * works[0])

    def test_calibration_without_a_step_time_is_refused(self):
        out = image_train("--calibrate", "1.5")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--gpu-ms", out.stderr)
        out = image_train("--calibrate", "-1", "--gpu-ms", "60")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--calibrate must be > 0 cores, not -1", out.stderr)

    def test_the_small_cnn_learns_the_two_classes(self):
        with tempfile.TemporaryDirectory() as d:
            out = image_train("--model", "small-cnn", "--iterations", "60", "--checkpoint-dir", d)
        self.assertEqual(out.returncode, 0, out.stderr)
        done = re.search(r"done at iteration 60, loss ([0-9.e-]+) -> ([0-9.e-]+)", out.stdout)
        self.assertIsNotNone(done, out.stdout)
        self.assertLess(float(done.group(2)), float(done.group(1)) / 2)

    def test_an_unknown_model_is_refused_with_the_choices(self):
        out = image_train("--model", "vgg")
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("invalid choice: 'vgg'", out.stderr)
        self.assertIn("small-cnn", out.stderr)


if __name__ == "__main__":
    unittest.main()
