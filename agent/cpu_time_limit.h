#pragma once
// The CPU-time limit a node with CPU slots lets a job set on itself while it
// profiles. On such a node a CPU is a share of the cores' time (a cgroup
// quota), not a core, so pinning alone cannot make "k CPUs" for a point of
// the profile: 3 slots of 2 cores would run on 2 whole cores and measure
// like 4. The node hands a profiling lease its own cgroup's limit file
// (SYNERGY_CPU_LIMIT_FILE: v2 cpu.max, or v1 cpu.cfs_quota_us, with the
// period in SYNERGY_CPU_PERIOD_US) and the profiler lowers it point by point,
// then puts the lease's limit back.
#include <string>
#include <utility>

namespace synergy::agent {

class CpuTimeLimit {
 public:
  // Unavailable when the node delegated nothing (or a period is missing).
  static CpuTimeLimit FromEnvironment();
  CpuTimeLimit(std::string file, long period_us) : file_(std::move(file)), period_us_(period_us) {}
  CpuTimeLimit() = default;

  bool available() const { return !file_.empty() && period_us_ > 0; }
  const std::string& file() const { return file_; }

  // Limits the job (all its processes) to `cores` cores of CPU time per
  // period. Returns "" or what went wrong, naming the file.
  std::string Set(double cores) const;

 private:
  std::string file_;
  long period_us_ = 0;
};

}  // namespace synergy::agent
