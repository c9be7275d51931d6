#pragma once
// `synergyctl history`: jobs as sacct shows them, one row each: when it
// was submitted, first launched and ended; how long it waited (first launch
// - submission), ran (time it held its GPUs) and took in all (JCT: end -
// submission); its launches and its outcome. Times are RFC 3339 in UTC;
// durations in the table as 3m12s, in CSV and JSON as seconds.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

// --since: a duration back from now ("90s", "30m", "2h", "7d") or an RFC
// 3339 time; returns unix ms. Errors name --since and the text.
absl::StatusOr<int64_t> ParseSince(const std::string& text, int64_t now_ms);

// Jobs submitted at or after `since_ms`, in id order.
std::vector<v1::Job> JobsSince(std::vector<v1::Job> jobs, int64_t since_ms);

std::string HistoryTable(const std::vector<v1::Job>& jobs, int64_t now_ms);
// Header line, then a row per job; fields with a comma, quote or line break
// quoted (RFC 4180). Empty cells for what has not happened yet.
std::string HistoryCsv(const std::vector<v1::Job>& jobs);
// A JSON array of objects with the CSV's columns as keys; null for what has
// not happened yet.
std::string HistoryJson(const std::vector<v1::Job>& jobs);

// -o trace: the jobs that succeeded as a trace synergy-sim replays
// (sim/trace.h, with a header): job_id (the id's number), model, arrival_s
// (from the first one's submission), iterations (the spec's), gpus,
// checkpoints (1 for an agent job), duration_s (the time it held its GPUs),
// user, time_limit_s (empty: none) and tenant, so that an operator can ask what another policy or mechanism
// would have done with them. A job that did not succeed, or has no model
// or no iteration count, cannot be replayed: skipped, and counted.
struct HistoryTraceOut {
  std::string trace;  // header only when no job was written
  int written = 0;
  int not_succeeded = 0;
  int without_model_or_iterations = 0;
};
HistoryTraceOut HistoryTrace(const std::vector<v1::Job>& jobs);

}  // namespace synergy::cli
