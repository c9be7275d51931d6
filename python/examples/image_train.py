#!/usr/bin/env python3
"""An image training job whose data pipeline is CPU-heavy: torchvision's
FakeData "decoded" and augmented per sample (RandomResizedCrop, ColorJitter,
flips and normalisation, --work passes), so its throughput grows with data
workers until the model's step is the bottleneck. ResNet-18 (weights=None)
learns to tell two classes apart: class 1's images are brighter; the loss
falls.

    image_train.py [--iterations N] [--batch B] [--work K] [--gpu-ms MS]
                   [--checkpoint-dir D] [--result F] [--profile]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torchvision  # noqa: E402
from torchvision import transforms as T  # noqa: E402

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


def build(flags):
    model = torchvision.models.resnet18(weights=None, num_classes=2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dataset = TwoClassImages(flags.work)

    def loss_fn(m, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(m(x), y)

    return model, optimizer, dataset, loss_fn


if __name__ == "__main__":
    train_common.main(build, "image_train", batch=8, work=1)
