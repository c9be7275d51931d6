#pragma once
// The named columns of a synergy-sim trace (trace.h), in the order
// FormatTrace writes them: the one list the simulator's reader and every
// writer of traces (synergyctl history -o trace) share. Header-only, so a
// writer needs no part of the simulator.
#include <cstddef>
#include <string_view>

namespace synergy::sim {

enum class TraceColumn { kJobId, kModel, kArrival, kIterations, kGpus, kCheckpoints, kCpus, kMemGb, kGpuFraction,
                         kGpuType, kDurationS, kUser, kTimeLimitS, kTenant };
struct TraceColumnInfo {
  TraceColumn column;
  const char* name;
  bool required;
};
inline constexpr TraceColumnInfo kTraceColumns[] = {
    {TraceColumn::kJobId, "job_id", true},          {TraceColumn::kModel, "model", true},
    {TraceColumn::kArrival, "arrival_s", true},     {TraceColumn::kIterations, "iterations", true},
    {TraceColumn::kGpus, "gpus", true},             {TraceColumn::kCheckpoints, "checkpoints", false},
    {TraceColumn::kCpus, "cpus", false},            {TraceColumn::kMemGb, "mem_gb", false},
    {TraceColumn::kGpuFraction, "gpu_fraction", false}, {TraceColumn::kGpuType, "gpu_type", false},
    {TraceColumn::kDurationS, "duration_s", false}, {TraceColumn::kUser, "user", false},
    {TraceColumn::kTimeLimitS, "time_limit_s", false}, {TraceColumn::kTenant, "tenant", false}};
// Without a header, the first six by position (job_id .. checkpoints).
inline constexpr size_t kPositionalTraceColumns = 6;

inline constexpr const char* TraceColumnName(TraceColumn c) { return kTraceColumns[static_cast<size_t>(c)].name; }

// The longest user, tenant or GPU type name a trace holds.
inline constexpr size_t kMaxTraceNameBytes = 128;

// A user or GPU type name a trace holds as it is: at most
// kMaxTraceNameBytes printable characters, no space, comma or quote (a
// CSV cell without quoting).
inline bool IsPlainTraceName(std::string_view text) {
  if (text.size() > kMaxTraceNameBytes) return false;
  for (char c : text) {
    if (c <= ' ' || c > '~' || c == ',' || c == '"' || c == '\'') return false;
  }
  return true;
}

}  // namespace synergy::sim
