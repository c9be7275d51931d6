# Type stubs of synergy._agent, the binding over libsynergy_agent.
from typing import Callable, List

class Lease:
    job_id: str
    epoch: int
    rank: int
    world_size: int
    cpus: int
    mem_gb: float
    total_iterations: int
    profiling: bool

class CpuPoint:
    cpus: int
    throughput: float

class CpuProfile:
    measured: List[CpuPoint]
    knee: int
    seconds: float

class Allocation:
    revision: int
    cpu_ids: List[int]
    cpus: int
    mem_gb: float

class MemoryModel:
    dataset_gb: float
    mb_per_iteration: float
    storage_mbps: float
    baseline_gb: float
    def __init__(
        self, *, dataset_gb: float = 0.0, mb_per_iteration: float = 0.0, storage_mbps: float = 500.0, baseline_gb: float = 0.0
    ) -> None: ...

class NativeAgent:
    @staticmethod
    def from_environment(report_interval_ms: int = 1000) -> NativeAgent: ...
    @property
    def managed(self) -> bool: ...
    @property
    def lease(self) -> Lease: ...
    @property
    def start_iteration(self) -> int: ...
    @property
    def checkpoint_path(self) -> str: ...
    @property
    def iteration(self) -> int: ...
    @property
    def lease_ended(self) -> bool: ...
    def on_checkpoint(self, save: Callable[[int], str]) -> None: ...
    def on_resize(self, apply: Callable[[Allocation], None]) -> None: ...
    def step(self) -> bool: ...
    def finish(self) -> None: ...
    def profile(
        self,
        measure: Callable[[int, int], float],
        memory: MemoryModel,
        mem_points_gb: List[float],
        threshold: float,
        iterations_per_point: int,
        passes: int = 1,
    ) -> CpuProfile: ...
