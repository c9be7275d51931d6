"""synergy.Agent: the job side of a lease (see the package's docstring)."""
from __future__ import annotations

from typing import Callable, Iterable, Iterator, Optional, Sequence, TypeVar

from . import _agent

T = TypeVar("T")


class Agent:
    """The agent of one training process.

    Make it with :meth:`from_environment`. Progress is reported by a
    background thread; an iteration costs the loop one call into C++.
    """

    def __init__(self, native: _agent.NativeAgent, exit_on_lease_end: bool = True) -> None:
        self._native = native
        self._exit_on_lease_end = exit_on_lease_end

    @classmethod
    def from_environment(cls, *, report_interval_ms: int = 1000, exit_on_lease_end: bool = True) -> "Agent":
        """The agent for the lease in this process's SYNERGY_* environment.

        With SYNERGY_JOB_ID set it connects to synergyd and registers (a
        refused registration, a stale lease, ends the process with status
        3: it must not run beside the current one). Without it the agent is
        standalone. ``exit_on_lease_end``: when the lease ends, the loop in
        :meth:`wrap` raises ``SystemExit(0)`` once the checkpoint is
        confirmed (else the loop just ends; see :attr:`lease_ended`).
        """
        if report_interval_ms <= 0:
            raise ValueError(f"report_interval_ms: {report_interval_ms} is not positive")
        return cls(_agent.NativeAgent.from_environment(report_interval_ms), exit_on_lease_end)

    @property
    def managed(self) -> bool:
        """True when synergyd started this process (False: standalone)."""
        return self._native.managed

    @property
    def lease(self) -> _agent.Lease:
        """The lease: CPUs, memory, rank, world size, profiling."""
        return self._native.lease

    @property
    def start_iteration(self) -> int:
        """The iteration of the last confirmed checkpoint (0 when none)."""
        return self._native.start_iteration

    @property
    def checkpoint_path(self) -> str:
        """The path of the last confirmed checkpoint ("" when none)."""
        return self._native.checkpoint_path

    @property
    def iteration(self) -> int:
        """Iterations done, counting from :attr:`start_iteration`."""
        return self._native.iteration

    @property
    def lease_ended(self) -> bool:
        """The lease ended at the last step: the checkpoint is taken."""
        return self._native.lease_ended

    def on_checkpoint(self, save: Callable[[int], str]) -> Callable[[int], str]:
        """Sets the checkpoint callback: ``save(iteration)`` writes the job's
        state and returns the path written (write a temporary file, then
        rename it, so that a crash mid-save keeps the last good one). Rank 0
        runs it when the lease ends and at :meth:`finish`. Returns ``save``,
        so it works as a decorator."""
        self._native.on_checkpoint(save)
        return save

    def on_resize(self, apply: Callable[[_agent.Allocation], None]) -> Callable[[_agent.Allocation], None]:
        """Follows resizes in place: synergyd may then change this lease's
        CPUs and memory while the job runs instead of ending the lease.
        ``apply(allocation)`` is called inside :meth:`step`, at an iteration
        boundary, once the node has changed the job's limits; when it
        returns the job must fit the new allocation (its data loader has
        shed or started workers: :class:`synergy.torch.LeaseLoader` does
        this), and the agent confirms it, after which a smaller memory
        limit is enforced. :attr:`lease` follows. Returns ``apply``, so it
        works as a decorator."""
        self._native.on_resize(apply)
        return apply

    def step(self) -> bool:
        """One iteration done. False when the loop must stop here: the lease
        ended at this boundary (the checkpoint has been taken and confirmed)
        or the job's iterations are all done."""
        return self._native.step()

    def wrap(self, iterable: Iterable[T]) -> Iterator[T]:
        """``for batch in agent.wrap(loader)``: the iterable's items, one
        iteration each, ending early when :meth:`step` says so. At a lease
        end it raises ``SystemExit(0)`` after the loop body of the last
        iteration (unless the agent was made with exit_on_lease_end=False)."""
        step = self._native.step
        for item in iterable:
            yield item
            if not step():
                if self._exit_on_lease_end and self._native.lease_ended:
                    raise SystemExit(0)
                return

    def finish(self) -> None:
        """The job is done: rank 0's final checkpoint is taken and confirmed
        as finished. Standalone, or after a lease end, it does nothing."""
        self._native.finish()

    def profile(
        self,
        measure: Callable[[int, int], float],
        memory_model: Optional[_agent.MemoryModel] = None,
        mem_points_gb: Optional[Sequence[float]] = None,
        *,
        threshold: float = 0.10,
        iterations_per_point: int = 50,
        passes: int = 1,
    ) -> _agent.CpuProfile:
        """Optimistic profiling (docs/profiling.md). ``measure(cpus,
        iterations)`` runs ``iterations`` iterations with ``cpus`` data
        workers and returns iterations per second; it is called with this
        thread pinned to that many CPUs (worker processes it starts inherit
        it). The memory axis is modelled by ``memory_model`` over
        ``mem_points_gb`` (default: a quarter, half, three quarters and all
        of the lease's memory). Under a profiling lease the matrix is sent
        to synergyd; standalone it measures over SYNERGY_CPUS (or the
        machine's CPUs) and sends nothing. With ``passes`` > 1 the search
        runs again, each point keeping its best reading (for a machine whose
        speed varies: interference only slows a pipeline). Returns the CPU
        profile."""
        if not 0 < threshold < 1:
            raise ValueError(f"threshold: {threshold} is not between 0 and 1")
        if iterations_per_point <= 0:
            raise ValueError(f"iterations_per_point: {iterations_per_point} is not positive")
        if not 1 <= passes <= 10:
            raise ValueError(f"passes: {passes} is not between 1 and 10")
        return self._native.profile(
            measure,
            memory_model if memory_model is not None else _agent.MemoryModel(),
            list(mem_points_gb or []),
            threshold,
            iterations_per_point,
            passes,
        )
