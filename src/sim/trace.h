#pragma once
// The reference's replay format: one job per line,
//   job_id,model,arrival_s,iterations,gpus
// with no header. Iterations are taken as they are (already divided by the
// model's iteration time when the trace was recorded).
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/workload.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

// Parses and validates a whole trace; on any error returns
// "FILE:LINE: FIELD: message" and nothing else. Checks: five fields, unique
// non-negative integer ids, a model the zoo knows, finite arrival >= 0,
// iterations > 0, 1 <= gpus <= the cluster's GPUs. Jobs come back in
// arrival order (file order among equal arrivals).
absl::StatusOr<std::vector<JobSpec>> ParseTrace(absl::string_view text,
                                                const std::string& source,
                                                const ModelZoo& zoo, const Cluster& cluster);
absl::StatusOr<std::vector<JobSpec>> LoadTrace(const std::string& path, const ModelZoo& zoo,
                                               const Cluster& cluster);

// One line in the replay format, newline included; whole numbers are
// written without a fraction, as the reference writes them.
std::string FormatTraceLine(const JobSpec& job, const ModelZoo& zoo);

}  // namespace synergy::sim
