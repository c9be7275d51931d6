#!/usr/bin/env python3
"""An image training job whose data pipeline is CPU-heavy: torchvision's
FakeData "decoded" and augmented per sample (RandomResizedCrop, ColorJitter,
flips and normalisation, --work passes), so its throughput grows with data
workers until the model's step is the bottleneck. ResNet-18 (weights=None)
learns to tell two classes apart: class 1's images are brighter; the loss
falls.

Without CUDA, --model small-cnn trains a three-layer CNN instead: with the
GPU stood in by --gpu-ms, ResNet-18's step would run on the very CPUs the
scheduler hands out (about 0.2 s a batch on one core) and hide the data
pipeline that this job is about. --calibrate CORES prints the --work at
which the pipeline keeps the stand-in GPU busy with CORES cores of CPU and
no fewer (scripts/demo-examples uses it, so that the job is CPU-sensitive
past its proportional share on any machine).

    image_train.py [--iterations N] [--batch B] [--work K] [--gpu-ms MS]
                   [--model resnet18|small-cnn] [--checkpoint-dir D]
                   [--result F] [--profile] [--calibrate CORES]
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torchvision  # noqa: E402
from torchvision import transforms as T  # noqa: E402

import synergy.torch as st  # noqa: E402
import train_common  # noqa: E402


class TwoClassImages(torch.utils.data.Dataset):
    # Samples are made from their index: the size only bounds the index.
    def __init__(self, work: int, size: int = 10**8, image: int = 32, source: int = 96) -> None:
        self.fake = torchvision.datasets.FakeData(size=size, image_size=(3, source, source), num_classes=2)
        augment = [T.RandomResizedCrop(image, antialias=True), T.ColorJitter(0.4, 0.4, 0.4, 0.1),
                   T.RandomHorizontalFlip()]
        self.passes = T.Compose(augment)
        self.work = work
        self.finish = T.Compose([T.ToTensor(), T.Normalize([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])])

    def __len__(self) -> int:
        return len(self.fake)

    def __getitem__(self, index: int):
        picture, _ = self.fake[index]
        label = index % 2
        for _ in range(max(1, self.work)):
            out = self.passes(picture)
        return self.finish(out) + (0.5 if label else -0.5), label


class SmallCnn(torch.nn.Sequential):
    def __init__(self) -> None:
        super().__init__(
            torch.nn.Conv2d(3, 16, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(16, 32, 3, stride=2, padding=1), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 2))


MODELS = {"resnet18": lambda: torchvision.models.resnet18(weights=None, num_classes=2), "small-cnn": SmallCnn}


def build(flags):
    model = MODELS[flags.model]()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dataset = TwoClassImages(flags.work)

    def loss_fn(m, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(m(x), y)

    return model, optimizer, dataset, loss_fn


def seconds_per_sample(work: int, batch: int, batches: int = 6, repeats: int = 2) -> float:
    # The first batches of a training run, loaded as training loads them
    # (synergy.torch's loader, in this process), in this process's CPU time:
    # what the work costs, not what else ran; the fastest of a few runs.
    loader = st.data_loader(TwoClassImages(work), batch, workers=0, samples=batches * batch)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in loader:
            pass
        best = min(best, (time.process_time() - t0) / (batches * batch))
    return best


def calibrate(flags) -> int:
    """The --work at which a batch's samples plus the loop's own step take
    CORES cores for one stand-in GPU step (--gpu-ms): the pipeline then
    saturates the GPU at CORES cores and is CPU-bound below. Linear in the
    work: a sample costs base + work x per_pass."""
    cores = flags.calibrate
    if flags.gpu_ms <= 0:
        raise SystemExit("image_train: --calibrate needs --gpu-ms > 0")
    # Rounds over about 8 seconds, the fastest of each: a virtual machine
    # shares its host, whose slow spells of a few seconds (up to 1.8x here,
    # in CPU time too: the host takes the time from under the guest) would
    # calibrate too little work, and the pipeline would saturate at too few
    # CPUs.
    one = nine = float("inf")
    for r in range(6):
        if r:
            time.sleep(1.0)
        one = min(one, seconds_per_sample(1, flags.batch))
        nine = min(nine, seconds_per_sample(9, flags.batch))
    per_pass = max(1e-6, (nine - one) / 8)
    base = max(0.0, one - per_pass)
    model, optimizer, dataset, loss_fn = build(flags)
    batch = torch.utils.data.default_collate([dataset[i] for i in range(flags.batch)])
    steps = []
    for _ in range(8):
        t0 = time.process_time()
        optimizer.zero_grad()
        loss_fn(model, batch).backward()
        optimizer.step()
        steps.append(time.process_time() - t0)
    step = min(steps[1:])
    budget = cores * flags.gpu_ms / 1000 - step  # CPU seconds per iteration for the samples
    work = max(1, round((budget / flags.batch - base) / per_pass))
    print(f"image_train calibration: a sample {base * 1000:.2f} ms + {per_pass * 1000:.2f} ms a pass, "
          f"a {flags.model} step {step * 1000:.1f} ms; {cores:g} cores feed a {flags.gpu_ms:g} ms step "
          f"at --work {work}", file=sys.stderr, flush=True)
    return work


if __name__ == "__main__":
    train_common.main(build, "image_train", batch=8, work=1, model="resnet18", models=list(MODELS),
                      calibrate=calibrate)
