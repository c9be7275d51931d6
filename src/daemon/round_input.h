#pragma once
// The daemon's side of "one core, two drivers": turns synergyd's records
// (jobs as v1::Job, nodes as v1::Node) into the core's RoundInput, the same
// JobView fields synergy-sim fills from its own records. A job known by a
// zoo model gets that model's profile and ideal demand; a job without one
// (or a plain process without the agent) is scheduled at its proportional
// share.
#include <optional>
#include <string>
#include <vector>

#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/model_zoo.h"
#include "synergy/round.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// "j-000012" -> 12; -1 when not of that form.
JobId NumericJobId(const std::string& id);
std::string JobIdString(JobId id);

// Servers of the round: alive, undrained nodes, by name. Storage is not
// tracked by the daemon (0).
struct RoundCluster {
  Cluster cluster;
  std::vector<std::string> node_names;  // index = server index
};
RoundCluster ClusterOf(const std::vector<const v1::Node*>& nodes);

// The profile a job's agent measured, as the core's ModelSpec for this
// cluster: per-GPU grid points (cpus / gpus, mem / gpus), throughput
// normalised at the cluster's proportional share, the ideal demand the
// fewest cores (then GB) within `knee_tolerance` of the best throughput
// (the profiler's threshold, so noise does not pick the ideal), iteration time the
// measured one at the share. nullopt when the measurements do not cover
// the proportional share (nothing to compare with).
std::optional<ModelSpec> ModelFromMeasured(const v1::MeasuredProfile& measured, int gpus,
                                           const Cluster& cluster, double knee_tolerance = 0.10);

// CPU ids for a planned slice of `cpus` cores: whole ids, at least one
// (the core plans fractional cores).
int WholeCpus(double cpus);

// Whether `held`, a lease's slice, is what `planned` asks of `node`: the
// same node, GPU count, whole CPUs and memory.
bool SliceHolds(const v1::LeaseSlice& held, const std::string& node, const Slice& planned);

// Whether `lease` already is what `planned` asks for: one held slice per
// planned slice (SliceHolds), in any order, since a lease's slice order is
// its ranks' and the plan's is by server index.
bool LeaseHolds(const v1::Lease& lease, const Assignment& planned, const std::vector<std::string>& node_names);

// The JobView of `job` (times in seconds on the wall clock). `measured`,
// when not null, is the job's measured model and wins over the zoo's.
JobView ViewOf(const v1::Job& job, const ModelZoo& zoo, const Cluster& cluster,
               const ModelSpec* measured = nullptr);

}  // namespace synergy::daemon
