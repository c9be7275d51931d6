"""Synergy's job agent for Python training jobs.

A job that Synergy schedules reports its progress, learns when its lease
ends, checkpoints at an iteration boundary and resumes where it stopped::

    import synergy

    agent = synergy.Agent.from_environment()
    state = restore(agent.checkpoint_path)          # "" on a first start

    @agent.on_checkpoint
    def save(iteration):
        return write_checkpoint(iteration)          # returns the path written

    for batch in agent.wrap(loader):
        train(batch)
    agent.finish()

Without SYNERGY_JOB_ID in the environment (no scheduler started the
process) the agent is standalone and does nothing, so the same script runs
on a laptop. ``synergy.torch`` has PyTorch's pieces: a DataLoader that
follows the lease's CPUs, checkpoints of model, optimizer and RNG states,
and a ``measure`` function for the profiler.
"""
from ._agent import CpuPoint, CpuProfile, Lease, MemoryModel
from .agent import Agent

__all__ = ["Agent", "CpuPoint", "CpuProfile", "Lease", "MemoryModel"]
