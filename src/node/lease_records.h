#pragma once
// The processes this node started, one small file each under
// <state_dir>/running/, named "<node>.<job>.<epoch>" and holding the pid and
// the process's start time: written once the process runs, removed once its
// exit is reaped. A synergy-node that ends without reaping them (kill -9, a
// crash) leaves its files behind; the next synergy-node of the same name
// reads them (Load) to find what still runs (node/orphans.h).
#include <sys/types.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace synergy::node {

struct StartedProcess {
  std::string job_id;
  int64_t epoch = 0;
  pid_t pid = 0;
  uint64_t start_ticks = 0;  // ProcessStartTicks at its start
  pid_t owner = 0;           // the synergy-node process that started it
};

class LeaseRecords {
 public:
  // `state_dir` "" keeps no records (Keep and Forget do nothing).
  LeaseRecords(std::string state_dir, std::string node);

  // Creates <state_dir>/running (0700); an error names the directory.
  absl::Status Open();
  // Records a process that runs now (written to a temporary file, then
  // renamed: a file is whole or absent). A failure is logged, not fatal:
  // the job runs, unrecorded.
  void Keep(const StartedProcess& process);
  void Forget(const std::string& job_id, int64_t epoch);
  // This node's records, by file name (other nodes' in a shared directory
  // are not read); files that do not parse are removed and logged.
  std::vector<StartedProcess> Load() const;

  // The synergy-node processes that have used this state_dir (its file
  // "owners"): only their cgroups are this node's to sweep, not those of
  // another cluster's node of the same name on this machine (two test
  // clusters). KeepOwners rewrites it as `live` plus `self`.
  std::set<pid_t> Owners() const;
  void KeepOwners(const std::set<pid_t>& live, pid_t self);

 private:
  std::string FileOf(const std::string& job_id, int64_t epoch) const;

  std::string dir_;  // <state_dir>/running, or ""
  std::string node_;
};

// When `pid` started, in clock ticks since boot (/proc/<pid>/stat, field
// 22): with the pid, it names one process, as a pid alone does not once it
// is reused. 0 when there is no such process, or it has ended (a zombie).
uint64_t ProcessStartTicks(pid_t pid);

// Whether `pid` is a running synergy-node process (/proc/<pid>/comm): the
// processes and cgroups it made are its own, not orphans, even under the
// same node name (two test clusters on one machine).
bool IsSynergyNode(pid_t pid);

}  // namespace synergy::node
