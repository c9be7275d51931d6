"""PyTorch on top of synergy.Agent.

- :func:`data_loader`: a DataLoader over samples ``[start, len)`` in order,
  with as many worker processes as the lease's CPUs allow (one CPU stays
  with the training loop) and each sample's random augmentation seeded by
  its index, so a job stopped and resumed by its leases sees the very
  batches of a straight run.
- :func:`save_checkpoint` / :func:`load_checkpoint`: model, optimizer,
  iteration and RNG states with ``torch.save``, written to a temporary file
  and renamed into place; a checkpoint's name carries its iteration and
  lease epoch, so it never replaces the last confirmed one.
- :func:`attach`: both wired to an agent (restore on start, save at lease end).
- :func:`pipeline_measure`: the ``measure`` function the profiler calls.
- :func:`init_distributed`: torch.distributed (gloo) from the lease's
  ranks (and :func:`data_loader`'s ``rank``/``world``: each rank its share
  of every global batch).

- :class:`LeaseLoader`: batches from such a loader with the lease's data
  workers, following resizes in place: when synergyd changes the lease's
  CPUs while the job runs, the loader sheds or starts workers at the next
  batch, from the next sample, so the job sees the very batches of a run
  that was never resized.

Without a LeaseLoader (or another ``agent.on_resize``) a change of a job's
CPUs ends its lease and the job resumes under a new one, so a loader built
at start follows every allocation change that way.
"""
from __future__ import annotations

import os
import random
import time
from typing import Any, Callable, Iterable, Iterator, Optional

import torch
import torch.distributed
import torch.utils.data

from .agent import Agent


def workers_for(cpus: int) -> int:
    """Data-loader workers for ``cpus`` CPUs: one CPU stays with the training
    loop, the rest load data (0: load in the loop's process)."""
    return max(0, int(cpus) - 1)


def lease_cpus(agent: Agent) -> int:
    """The CPUs of this lease (standalone: SYNERGY_CPUS, else the CPUs this
    process may run on)."""
    if agent.lease.cpus > 0:
        return agent.lease.cpus
    return len(os.sched_getaffinity(0))


def data_workers(agent: Agent) -> int:
    """Data-loader workers for this lease's CPUs."""
    return workers_for(lease_cpus(agent))


class _SeededSamples(torch.utils.data.Dataset):
    """Sample ``i`` of ``dataset`` with torch's and Python's RNGs seeded by
    ``seed + i``: random augmentations depend on the index only, whichever
    worker (or lease) loads it."""

    def __init__(self, dataset: Any, seed: int) -> None:
        self.dataset = dataset
        self.seed = seed

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index: int) -> Any:
        torch.manual_seed(self.seed + index)
        random.seed(self.seed + index)
        return self.dataset[index]


class _RankShard(torch.utils.data.Dataset):
    """The samples of rank ``rank`` of ``world``: batch ``g`` of this rank is
    batch ``g * world + rank`` of ``dataset`` in batches of ``batch_size``,
    so global batch ``g`` (every rank's batch ``g`` together) is samples
    ``[g * world * batch_size, (g + 1) * world * batch_size)``: the batch a
    single process with ``world * batch_size`` would take."""

    def __init__(self, dataset: Any, rank: int, world: int, batch_size: int) -> None:
        if not 0 <= rank < world:
            raise ValueError(f"rank: {rank} is not in [0, {world})")
        self.dataset, self.rank, self.world, self.batch = dataset, rank, world, batch_size

    def __len__(self) -> int:
        return len(self.dataset) // (self.world * self.batch) * self.batch

    def __getitem__(self, index: int) -> Any:
        g, k = divmod(index, self.batch)
        return self.dataset[(g * self.world + self.rank) * self.batch + k]


def _one_thread_per_worker(_: int) -> None:
    # A worker is one CPU: without this each one's ops would start a team of
    # threads per core, oversubscribing the job's CPUs.
    torch.set_num_threads(1)


def data_loader(
    dataset: Any,
    batch_size: int,
    *,
    workers: int,
    start_sample: int = 0,
    samples: Optional[int] = None,
    seed: int = 0,
    rank: int = 0,
    world: int = 1,
    **kwargs: Any,
) -> torch.utils.data.DataLoader:
    """A DataLoader over ``dataset``'s samples ``[start_sample, start_sample
    + samples)`` (default: to the end), in order, in batches of
    ``batch_size``, with ``workers`` worker processes (see
    :func:`data_workers`) and each sample's augmentation seeded by its index
    in ``dataset``. With ``world`` > 1, rank ``rank``'s share: its batch
    ``g`` is batch ``g * world + rank`` of the dataset, so all ranks' batch
    ``g`` together are the batch one process with ``world * batch_size``
    would take; ``start_sample`` and ``samples`` then count this rank's
    samples. Other keyword arguments go to the DataLoader."""
    if batch_size <= 0:
        raise ValueError(f"batch_size: {batch_size} is not positive")
    if workers < 0:
        raise ValueError(f"workers: {workers} is negative")
    source: Any = _SeededSamples(dataset, seed)
    if world > 1:
        source = _RankShard(source, rank, world, batch_size)
    end = len(source) if samples is None else min(len(source), start_sample + samples)
    indices = range(start_sample, max(start_sample, end))
    subset = torch.utils.data.Subset(source, indices)
    return torch.utils.data.DataLoader(
        subset,
        batch_size=batch_size,
        shuffle=False,
        num_workers=workers,
        worker_init_fn=_one_thread_per_worker if workers > 0 else None,
        persistent_workers=False,
        **kwargs,
    )


class LeaseLoader:
    """Batches ``[first_batch, first_batch + batches)`` from
    ``make(workers, first_batch, batches)`` (e.g. a :func:`data_loader` over
    those batches) with :func:`data_workers` for the lease's CPUs, following
    resizes in place: it sets ``agent.on_resize``, and when the CPUs change
    it shuts its workers down inside the callback (so the job has shed them
    when the agent confirms, before a smaller memory limit is enforced) and
    makes a new loader with the new count from the next batch;
    ``announce(allocation, workers)`` is called after each. Batches a
    shut-down worker had prefetched are made again, the same ones (see
    :func:`data_loader`), and the torch RNG state is kept across the new
    loader's start: a resized run trains on exactly the batches of one that
    was not."""

    def __init__(self, agent: Agent, make: Callable[[int, int, int], Iterable[Any]], first_batch: int,
                 batches: int, *, announce: Optional[Callable[[Any, int], None]] = None) -> None:
        if first_batch < 0 or batches < 0:
            raise ValueError(f"first_batch {first_batch}, batches {batches}: must not be negative")
        self._make = make
        self._next, self._end = first_batch, first_batch + batches
        self._iterator: Optional[Any] = None
        self._started = False
        self.workers = data_workers(agent)
        self.resizes = 0  # worker counts changed in place
        self._announce = announce  # announce(allocation, workers) after each resize
        if agent.managed:
            agent.on_resize(self._resize)

    def _resize(self, allocation: Any) -> None:
        workers = workers_for(allocation.cpus)
        if workers != self.workers:
            self.workers = workers
            self.resizes += 1
            self._close()
        if self._announce is not None:
            self._announce(allocation, workers)

    def _close(self) -> None:
        iterator, self._iterator = self._iterator, None
        shutdown = getattr(iterator, "_shutdown_workers", None)
        if shutdown is not None:
            shutdown()

    def __iter__(self) -> Iterator[Any]:
        while self._next < self._end:
            if self._iterator is None:
                # A loader's start draws its workers' seed from torch's RNG:
                # a restart after a resize must not move the training's.
                rng = torch.get_rng_state() if self._started else None
                self._iterator = iter(self._make(self.workers, self._next, self._end - self._next))
                if rng is not None:
                    torch.set_rng_state(rng)
                self._started = True
            try:
                batch = next(self._iterator)
            except StopIteration:
                break
            self._next += 1
            yield batch
        self._close()


def _fsync_dir(directory: str) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_checkpoint(
    directory: str,
    name: str,
    iteration: int,
    model: torch.nn.Module,
    optimizer: Optional[torch.optim.Optimizer] = None,
    epoch: int = 0,
) -> str:
    """Writes ``<directory>/<name>.<iteration>.e<epoch>.pt`` holding the
    model's and optimizer's states, the iteration and the RNG states
    (torch's and Python's), via a temporary file, fsync and a rename; returns
    its path. The name differs for every lease and iteration, so the last
    confirmed checkpoint is never written over."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.{iteration}.e{epoch}.pt")
    state = {
        "iteration": iteration,
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "torch_rng": torch.get_rng_state(),
        "python_rng": random.getstate(),
    }
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        torch.save(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _fsync_dir(directory)
    return path


def load_checkpoint(path: str, model: torch.nn.Module, optimizer: Optional[torch.optim.Optimizer] = None) -> int:
    """Restores what :func:`save_checkpoint` wrote; returns its iteration."""
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None and state.get("optimizer") is not None:
        optimizer.load_state_dict(state["optimizer"])
    torch.set_rng_state(state["torch_rng"])
    random.setstate(state["python_rng"])
    return int(state["iteration"])


def attach(
    agent: Agent,
    directory: str,
    model: torch.nn.Module,
    optimizer: Optional[torch.optim.Optimizer] = None,
    name: Optional[str] = None,
) -> int:
    """Wires checkpoints to ``agent``: restores the last confirmed one (when
    there is one) and saves one whenever the agent asks (lease end,
    finish). ``name`` defaults to the job's id. Returns the iteration to
    start from."""
    job = name or (agent.lease.job_id if agent.managed else "job")
    start = 0
    if agent.start_iteration > 0 and agent.checkpoint_path:
        start = load_checkpoint(agent.checkpoint_path, model, optimizer)
    epoch = agent.lease.epoch
    agent.on_checkpoint(lambda it: save_checkpoint(directory, job, it, model, optimizer, epoch))
    return start


def pipeline_measure(
    make_loader: Callable[[int, int], Iterable[Any]],
    step: Callable[[Any], Any],
) -> Callable[[int, int], float]:
    """The profiler's ``measure(cpus, iterations)``: builds
    ``make_loader(workers_for(cpus), iterations)`` (a loader of that many
    batches), runs ``step`` on each batch and returns batches per second in
    the steady state: timed from the k-th batch with k workers (they start
    together, so the first k batches come about at once; counting them would
    credit more workers with batches made before the clock started).
    ``step`` should not change the model (profiling measures, it does not
    learn)."""

    def measure(cpus: int, iterations: int) -> float:
        workers = workers_for(cpus)
        # At least one timed batch after the warm-up.
        warm = max(1, min(workers, iterations - 2))
        done = 0
        start = time.perf_counter()
        for batch in make_loader(workers, iterations):
            step(batch)
            done += 1
            if done == warm:
                start = time.perf_counter()
        seconds = time.perf_counter() - start
        return (done - warm) / seconds if done > warm and seconds > 0 else 0.0

    return measure


def init_distributed(agent: Agent, backend: str = "gloo") -> bool:
    """Joins the job's ranks with torch.distributed when the lease has more
    than one (synergyd gives every rank SYNERGY_MASTER_ADDR and
    SYNERGY_MASTER_PORT); returns whether it did. The agent makes every
    rank stop at rank 0's iteration when the lease ends."""
    lease = agent.lease
    if lease.world_size <= 1:
        return False
    addr = os.environ.get("SYNERGY_MASTER_ADDR", "127.0.0.1")
    port = os.environ.get("SYNERGY_MASTER_PORT", "29500")
    torch.distributed.init_process_group(
        backend, init_method=f"tcp://{addr}:{port}", rank=lease.rank, world_size=lease.world_size
    )
    return True
