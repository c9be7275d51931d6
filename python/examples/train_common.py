"""What the Python example jobs share: flags, the agent and checkpoints,
profiling under a profiling lease, the loop, and a checksum of the final
parameters (a run stopped and resumed by its leases must end with the very
parameters of a straight run: same data order, same seeds, one thread).

The GPU: with CUDA the model trains there. Without one (Debian's PyTorch is
CPU-only) --gpu-ms N stands in for a GPU's step time: a step is padded
with sleep to N ms, as the CPU would wait for the device, so the data
pipeline and the "GPU" overlap as they do on a real server.
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Callable

import torch

import synergy
import synergy.torch as st


def parse_flags(argv=None, **defaults) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=defaults.get("iterations", 200),
                   help="standalone; under synergyd the job spec's")
    p.add_argument("--batch", type=int, default=defaults.get("batch", 16))
    p.add_argument("--work", type=int, default=defaults.get("work", 1), help="augmentation passes per sample")
    p.add_argument("--gpu-ms", type=float, default=0.0, help="stand-in GPU step time without CUDA")
    if "models" in defaults:
        p.add_argument("--model", choices=defaults["models"], default=defaults["model"])
    if "calibrate" in defaults:
        p.add_argument("--calibrate", type=float, default=0.0, metavar="CORES",
                       help="print the --work that keeps --gpu-ms busy with CORES cores of CPU, and exit")
    p.add_argument("--checkpoint-dir", default=".")
    p.add_argument("--result", default="", help="write the parameter checksum here at the end")
    p.add_argument("--profile", action="store_true", help="standalone: profile this machine's CPUs and exit")
    p.add_argument("--profile-iterations", type=int, default=20)
    p.add_argument("--profile-passes", type=int, default=1,
                   help="search the CPU axis this many times, each point keeping its best reading")
    f = p.parse_args(argv)
    if f.batch <= 0 or f.iterations < 0 or f.gpu_ms < 0 or f.work < 0 or f.profile_iterations < 2 \
            or not 1 <= f.profile_passes <= 10:
        p.error("--batch must be > 0; --iterations, --work and --gpu-ms >= 0; --profile-iterations >= 2; "
                "--profile-passes 1 to 10")
    if getattr(f, "calibrate", 0) < 0:
        p.error(f"--calibrate must be > 0 cores, not {f.calibrate}")
    return f


def checksum(model: torch.nn.Module) -> str:
    return "%.17g" % sum(p.detach().double().sum().item() for p in model.parameters())


def padded_call(flags: argparse.Namespace, device: torch.device, fn: Callable[[], Any]) -> Any:
    """fn(), taking at least --gpu-ms on a CPU-only machine (a stand-in for
    the GPU's share of a step)."""
    t0 = time.perf_counter()
    out = fn()
    if flags.gpu_ms > 0 and device.type == "cpu":
        left = flags.gpu_ms / 1000 - (time.perf_counter() - t0)
        if left > 0:
            time.sleep(left)
    return out


def train_batches(label: str, batches: Any, start: int, step: Callable[[Any], float]) -> tuple:
    """Steps through `batches` from iteration `start`, printing the loss and
    rate every 50 iterations; returns (iteration, first loss, last loss)."""
    it, first, last = start, None, 0.0
    t0 = time.perf_counter()
    for batch in batches:
        last = step(batch)
        first = last if first is None else first
        it += 1
        if it % 50 == 0:
            print(f"{label}: iteration {it} loss {last:.4f} ({(it - start) / (time.perf_counter() - t0):.2f} it/s)",
                  flush=True)
    return it, first, last


def run(name: str, flags: argparse.Namespace, model: torch.nn.Module, optimizer: torch.optim.Optimizer,
        dataset: Any, loss_fn: Callable[[torch.nn.Module, Any], torch.Tensor]) -> int:
    agent = synergy.Agent.from_environment(exit_on_lease_end=False)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    start = st.attach(agent, flags.checkpoint_dir, model, optimizer, name=agent.lease.job_id or name)
    model.to(device)
    job = agent.lease.job_id or name
    trained = model
    if st.init_distributed(agent):
        # Every rank trains on its share of each global batch; gradients are
        # averaged, so the job learns as one process with world x batch would.
        trained = torch.nn.parallel.DistributedDataParallel(model)
        job = f"{job} rank {agent.lease.rank}"

    def loader(workers: int, first_batch: int, batches: int):
        return st.data_loader(dataset, flags.batch, workers=workers, start_sample=first_batch * flags.batch,
                              samples=batches * flags.batch, rank=agent.lease.rank,
                              world=agent.lease.world_size)

    if agent.lease.profiling or (flags.profile and not agent.managed):
        def measured_step(batch):  # forward and backward, no update: measured, not learned from
            optimizer.zero_grad()
            padded_call(flags, device, lambda: loss_fn(trained, batch).backward())
            optimizer.zero_grad()

        profile = agent.profile(st.pipeline_measure(lambda w, n: loader(w, start, n), measured_step),
                                iterations_per_point=flags.profile_iterations, passes=flags.profile_passes)
        points = " ".join(f"{p.cpus} cpus {p.throughput:.3g} it/s;" for p in profile.measured)
        print(f"{name} {job}: profile {points} knee {profile.knee} cpus ({profile.seconds:.1f} s)", flush=True)
        if not agent.managed:
            return 0

    total = agent.lease.total_iterations if agent.managed else flags.iterations

    def resized(allocation, workers: int) -> None:
        print(f"{name} {job}: resized in place at iteration {agent.iteration}: {allocation.cpus} cpus, "
              f"{workers} data workers", flush=True)

    batches = st.LeaseLoader(agent, loader, start, max(0, total - start), announce=resized)
    print(f"{name} {job}: iteration {start}, {st.lease_cpus(agent)} cpus, {batches.workers} data workers", flush=True)

    def train(batch):
        optimizer.zero_grad()
        loss = loss_fn(trained, batch)
        loss.backward()
        optimizer.step()
        return loss.item()

    it, first, last = train_batches(f"{name} {job}", agent.wrap(batches), start,
                                    lambda batch: padded_call(flags, device, lambda: train(batch)))
    if agent.lease_ended:
        print(f"{name} {job}: lease ended at iteration {it}", flush=True)
        return 0
    print(f"{name} {job}: done at iteration {it}, loss {first} -> {last}", flush=True)
    if flags.result and agent.lease.rank == 0:
        with open(flags.result, "w") as f:
            f.write(checksum(model) + "\n")
    agent.finish()
    return 0


def main(build: Callable[[argparse.Namespace], tuple], name: str, **defaults) -> None:
    torch.set_num_threads(1)
    flags = parse_flags(**defaults)
    if getattr(flags, "calibrate", 0) > 0:
        print(defaults["calibrate"](flags))
        sys.exit(0)
    torch.manual_seed(0)
    model, optimizer, dataset, loss_fn = build(flags)
    sys.exit(run(name, flags, model, optimizer, dataset, loss_fn))
