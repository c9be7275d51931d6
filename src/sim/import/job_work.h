#pragma once
// From the time a trace recorded to the work the simulator replays: a job
// ran for its duration under the allocation its submitter requested, so its
// iterations are those that take that long at that allocation, read
// through its model's sensitivity (and its GPU type's speed). Replayed
// under the `requested` mechanism where nothing queues, it runs for its
// recorded duration again.
#include <string>

#include "absl/status/statusor.h"
#include "sim/import/trace_format.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

// The iterations that take `job` (of zoo model `model`) its duration at the
// demand the `requested` mechanism gives it on `cluster` (RequestedDemand),
// on servers of GPU type `gpu_type` where the cluster has them ("" or a
// type it lacks: the zoo's base type), spread over servers (at its model's
// placement penalty) when no server has its GPUs. An error, naming the
// model, where the model would not run on that type.
absl::StatusOr<double> IterationsForDuration(const ModelZoo& zoo, int model, const ImportedJob& job,
                                             const std::string& gpu_type, const Cluster& cluster);

}  // namespace synergy::sim
