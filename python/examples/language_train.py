#!/usr/bin/env python3
"""A language-model training job with a light data pipeline: each sample is
a short token sequence generated from its index (a counting pattern with a
random start and stride), so data workers barely matter and its throughput
is flat in CPUs. A small embedding + GRU model learns to predict the next
token; the loss falls.

    language_train.py [--iterations N] [--batch B] [--gpu-ms MS]
                      [--checkpoint-dir D] [--result F] [--profile]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import train_common  # noqa: E402

VOCAB = 64
LENGTH = 33


class CountingSequences(torch.utils.data.Dataset):
    # Samples are made from their index: the size only bounds the index.
    def __init__(self, size: int = 10**8) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: int):
        # The RNG is seeded by the index (synergy.torch.data_loader).
        start = int(torch.randint(0, VOCAB, (1,)))
        stride = int(torch.randint(1, 4, (1,)))
        tokens = (start + stride * torch.arange(LENGTH)) % VOCAB
        return tokens[:-1], tokens[1:]


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 32)
        self.rnn = torch.nn.GRU(32, 64, batch_first=True)
        self.out = torch.nn.Linear(64, VOCAB)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.out(h)


def build(flags):
    model = Model()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    dataset = CountingSequences()

    def loss_fn(m, batch):
        x, y = batch
        return torch.nn.functional.cross_entropy(m(x).reshape(-1, VOCAB), y.reshape(-1))

    return model, optimizer, dataset, loss_fn


if __name__ == "__main__":
    train_common.main(build, "language_train", batch=16)
