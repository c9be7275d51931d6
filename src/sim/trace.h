#pragma once
// The reference's replay format: one job per line,
//   job_id,model,arrival_s,iterations,gpus[,checkpoints]
// with no header. Iterations are taken as they are (already divided by the
// model's iteration time when the trace was recorded). The sixth field is
// synergy-sim's own: 1 (the default) for a job that checkpoints, 0 for a
// plain process that cannot (JobSpec::checkpoints).
//
// Or, after a header line that names them (its first column job_id), the
// same columns in any order and what a trace recorded of each job beyond
// them (JobSpec's recorded fields; imported traces carry them):
//   cpus, mem_gb    what it requested (an empty cell or 0: not recorded)
//   gpu_fraction    the share of a GPU it asked for, in (0, 1] (empty: 1)
//   gpu_type        the GPU type it asked for (empty: any)
//   duration_s      its recorded run time (empty or 0: none)
//   user            who submitted it (empty: none)
//   time_limit_s    the longest it may run, over its leases (empty or 0: none)
// Every line then has the header's number of fields; names are printable,
// without spaces, commas or quotes, at most 128 bytes.
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "sim/workload.h"
#include "synergy/cluster.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

// Bounds past any real trace: 31 years of arrivals (the simulator's clock
// advances by rounds of a few hundred seconds, which a double stops
// resolving from about 5e18 s on), and the service's bound on iterations
// (kMaxIterations in service/request_limits.h).
inline constexpr double kMaxTraceArrivalS = 1e9;
inline constexpr double kMaxTraceIterations = 1e12;
// Bounds of the recorded fields: a recorded run time as long as the
// arrivals' span; a million cores, a billion GB.
inline constexpr double kMaxTraceDurationS = kMaxTraceArrivalS;
inline constexpr double kMaxRequestedCpus = 1e6;
inline constexpr double kMaxRequestedMemGb = 1e9;

// Parses and validates a whole trace; on any error returns
// "FILE:LINE: FIELD: 'VALUE': why" (the value quoted, escaped and cut at 64
// characters, synergy/quote.h) and nothing else. Checks: a header of known
// columns, each once, with the five required; five or six fields without
// one, the header's number with one; recorded fields in their ranges;
// unique non-negative integer ids, a model the zoo knows, finite arrival in
// [0, kMaxTraceArrivalS], iterations in (0, kMaxTraceIterations], 1 <= gpus
// <= the cluster's GPUs, checkpoints 0 or 1. Jobs come back in arrival order (file order among
// equal arrivals).
absl::StatusOr<std::vector<JobSpec>> ParseTrace(absl::string_view text,
                                                const std::string& source,
                                                const ModelZoo& zoo, const Cluster& cluster);
absl::StatusOr<std::vector<JobSpec>> LoadTrace(const std::string& path, const ModelZoo& zoo,
                                               const Cluster& cluster);

// One line in the replay format, newline included; whole numbers are
// written without a fraction, as the reference writes them, and the sixth
// field only for a job that cannot checkpoint.
std::string FormatTraceLine(const JobSpec& job, const ModelZoo& zoo);

// A whole trace ParseTrace reads back as `jobs`: FormatTraceLine's lines,
// or, where any job has recorded fields, a header naming every column and
// a line of all of them per job.
std::string FormatTrace(const std::vector<JobSpec>& jobs, const ModelZoo& zoo);
// The pieces of FormatTrace's named form, for writers that stream: the
// header naming every column, and one job's line of all of them.
std::string TraceHeaderLine();
std::string FormatTraceRow(const JobSpec& job, const ModelZoo& zoo);

}  // namespace synergy::sim
