#pragma once
// Resource confinement for job processes on a node. The scheduler hands each
// job CPUs and memory next to its GPUs (Synergy's whole point is that these
// are not proportional to GPUs), so a job that strays beyond them slows its
// neighbours and makes the scheduler's throughput estimates wrong. Affinity
// alone is advisory (a job can widen it again); cgroups make CPU pinning and
// memory limits binding.
//
// Machines differ in what they allow: a pure cgroup v2 tree, a hybrid with v1
// cpuset/memory hierarchies next to a controller-less v2 tree (the lab
// machines), or nothing writable at all (an unprivileged agent, a container).
// Detect() settles this once at start-up, per controller, and says in one warn
// line per missing controller why it is missing and what is therefore not
// enforced; the agent then runs with whatever it has. Place() never fails a
// launch on its own: the launcher logs its error and runs the job unconfined.
//
// The sub-tree is created under the agent's own cgroup in each hierarchy (read
// from /proc/self/cgroup), not at the hierarchy root: under systemd that is
// the delegated service cgroup, and in a sandbox it keeps jobs inside the
// accounting and limits that contain the agent. An agent in the root cgroup
// gets <root>/<controller>/synergy/ (v1) or <root>/synergy/ (v2).
//
// Job groups are <base>/<group>/ with <base> the synergy/ directory above.
// Remove() them only after every process in them is gone (the kernel refuses
// to remove a populated cgroup).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "service/names.h"  // FormatIdList: the kernel's cpu-list syntax

namespace synergy::node {

class Cgroups {
 public:
  // No controllers: Place() confines nothing and Remove() does nothing.
  Cgroups() = default;

  // Looks, per controller (cpuset, memory), first for cgroup v2 (a
  // cgroup.controllers file at v2_root, else at <v2_root>/unified, that offers
  // the controller to the agent's cgroup), then for a v1 hierarchy at
  // <v1_root>/<controller>. Creates and prepares the synergy/ sub-tree in
  // what it finds (v2: enables the controller in the parent's and synergy/'s
  // cgroup.subtree_control; v1 cpuset: copies cpuset.cpus and cpuset.mems
  // from the parent, without which no task can join). Logs one warn line for
  // each controller it cannot use. The roots and the self-cgroup file are
  // parameters so tests can point them at a temporary directory.
  // With `cpu_bandwidth` (a node with cpu_slots) the cpu controller is
  // looked for too (v2 cpu.max, v1 cpu.cfs_quota_us): CPU-time limits.
  static Cgroups Detect(const std::string& v1_root = "/sys/fs/cgroup",
                        const std::string& v2_root = "/sys/fs/cgroup",
                        const std::string& self_cgroup_file = "/proc/self/cgroup",
                        bool cpu_bandwidth = false);

  bool cpuset() const { return cpuset_.version != Version::kNone; }
  bool memory() const { return memory_.version != Version::kNone; }
  bool cpu() const { return cpu_.version != Version::kNone; }

  // One line for the start-up log, e.g. "cpuset: v1 /sys/fs/cgroup/cpuset/
  // synergy, memory: v2 /sys/fs/cgroup/synergy"; "none" when neither works.
  std::string Describe() const;

  // Puts `pid` into <base>/<group>/ of each available controller that has
  // something to enforce: cpuset when cpu_ids is non-empty (cpuset.cpus, and
  // on v1 cpuset.mems copied from synergy/; v2 inherits mems), memory when
  // mem_bytes > 0 (memory.max on v2, memory.limit_in_bytes on v1). Limits are
  // written before the pid so it never runs inside an unlimited group.
  // cpu when cpu_cores > 0: a CFS quota of cpu_cores x the period
  // (kCpuPeriodUs) per period.
  // Best effort across controllers: a failing one does not stop the other;
  // the error names each file and the errno text. `group` must be a single
  // path component (InvalidArgument otherwise).
  absl::Status Place(pid_t pid, const std::string& group,
                     const std::vector<int>& cpu_ids, int64_t mem_bytes, double cpu_cores = 0);

  // Changes the limits of <group>, which Place() made, while its processes
  // run (a resize in place): memory first when it grows, last when it
  // shrinks, so that the job never runs above its old limits with its new
  // CPUs or below its new memory with its old ones; 0 or empty leaves that
  // controller's limit alone. A lower memory limit than the group uses
  // makes the kernel reclaim, and fail (EBUSY on v1) where it cannot: the
  // error says so and the old limit stays. Best effort across controllers.
  absl::Status Update(const std::string& group, const std::vector<int>& cpu_ids, int64_t mem_bytes,
                      double cpu_cores, bool memory_grows);

  // The file holding <group>'s CPU-time limit (v2 cpu.max, v1
  // cpu.cfs_quota_us); "" without the cpu controller.
  std::string CpuLimitFile(const std::string& group) const;

  // The CFS period of CPU-time limits: short, so a limited job's data
  // pipeline is throttled in small steps rather than stalled for 100 ms.
  static constexpr int64_t kCpuPeriodUs = 20000;

  // The job groups (in any controller) whose names start with `prefix`.
  std::vector<std::string> GroupsStartingWith(const std::string& prefix) const;

  // rmdir <base>/<group>/ in each controller; a group that was never created
  // (ENOENT) is fine. A group still busy with exiting tasks is retried for
  // about 20 ms; anything else, or still busy, is logged at warn.
  void Remove(const std::string& group);

 private:
  enum class Version { kNone, kV1, kV2 };
  struct Controller {
    Version version = Version::kNone;
    std::string base;  // the synergy/ directory job groups are created in
  };

  absl::Status PlaceCpuset(const std::string& dir, const std::vector<int>& cpu_ids);
  absl::Status PlaceMemory(const std::string& dir, int64_t mem_bytes);
  absl::Status PlaceCpu(const std::string& dir, double cpu_cores);

  Controller cpuset_;
  Controller memory_;
  Controller cpu_;
};

}  // namespace synergy::node
