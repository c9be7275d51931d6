#pragma once
// Synergy's optimistic profiling, agent side (docs/profiling.md).
//
// CPU axis, measured: with all of a server's CPUs and memory, the job's
// throughput is measured at CPU counts chosen by binary search over
// [1, max_cpus]: a point where max_cpus improves on it by less than
// `threshold` (default 10%) sends the search down, any other up. The knee
// is the fewest CPUs within the threshold of the best throughput. At most
// 1 + ceil(log2(max_cpus)) points are measured, `iterations_per_point`
// iterations each.
//
// With `passes` > 1 the search runs again that many times in all, measuring
// each point it visits once more, and a point's throughput is the best of
// its readings: interference (a noisy neighbour, a host's slow spell) only
// slows a pipeline down, and one slowed point reads a knee a CPU off. The
// knee is the last pass's; a pass may visit points an earlier one did not.
//
// Memory axis, modelled: a DNN-aware cache (MinIO-style: a fixed part of
// the data set stays in memory and is never evicted) holding
// min(1, cache_gb / dataset_gb) of the items gives that hit rate in every
// epoch; misses are read from storage at `storage_mbps`. So the throughput
// at (c, m) is min(T_cpu(c), T_io(m)) with
//   T_io(m) = storage_mbps / (miss(m) * mb_per_iteration), miss(m) = 1 - hit(m),
//   hit(m) = min(1, max(0, m - baseline_gb) / dataset_gb),
// and T_io = infinity when nothing misses.
#include <functional>
#include <limits>
#include <vector>

namespace synergy::agent {

struct ProfilerOptions {
  double threshold = 0.10;
  int iterations_per_point = 50;
  int passes = 1;  // at least 1
};

struct CpuPoint {
  int cpus = 0;
  double throughput = 0;  // iterations per second
};

struct CpuProfile {
  std::vector<CpuPoint> measured;  // one per CPU count, in the order first measured; the best reading
  int knee = 0;                    // the fewest CPUs within the threshold of more
  double seconds = 0;              // time spent measuring (from `measure`'s reports), every pass
};

// `measure(cpus, iterations)` runs `iterations` iterations with `cpus` data
// workers and returns their throughput; iterations / throughput per point
// is added up as the profiling cost.
CpuProfile ProfileCpus(int max_cpus, const std::function<double(int cpus, int iterations)>& measure,
                       const ProfilerOptions& options = {});

// T_cpu at any CPU count: the measured points, linear between them, flat
// beyond the largest and proportional to the smallest below it.
double CpuThroughputAt(const CpuProfile& profile, double cpus);

struct MemoryModel {
  double dataset_gb = 0;        // 0: everything fits, memory does not matter
  double mb_per_iteration = 0;  // data read per iteration (batch x item size)
  double storage_mbps = 500;    // the node's storage bandwidth
  double baseline_gb = 0;       // memory the job needs before any cache
};
double IoThroughputAt(const MemoryModel& model, double mem_gb);

struct MatrixPoint {
  double cpus = 0;
  double mem_gb = 0;
  double throughput = 0;
};
// The matrix over cpu_points x mem_points: min(T_cpu, T_io).
std::vector<MatrixPoint> Matrix(const CpuProfile& cpu, const MemoryModel& memory,
                                const std::vector<double>& cpu_points, const std::vector<double>& mem_points);

}  // namespace synergy::agent
