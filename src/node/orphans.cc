#include "node/orphans.h"

#include <signal.h>

#include <map>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "spdlog/spdlog.h"

namespace synergy::node {
namespace {

using Lease = std::pair<std::string, int64_t>;

// Waits until none of `running` runs any more, at most `limit`; returns
// those still running.
std::map<Lease, StartedProcess> WaitGone(std::map<Lease, StartedProcess> running, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    for (auto it = running.begin(); it != running.end();) {
      it = ProcessStartTicks(it->second.pid) == it->second.start_ticks ? std::next(it) : running.erase(it);
    }
    if (running.empty() || std::chrono::steady_clock::now() >= deadline) return running;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void SignalGroup(pid_t pid, int sig) {
  // Each job leads its own process group; a process that left it is
  // reached by its pid, and whatever else is in its cgroup by Remove.
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);
}

}  // namespace

bool ParseJobGroup(const std::string& group, const std::string& node, pid_t* pid, std::string* job_id,
                   int64_t* epoch) {
  if (!absl::StartsWith(group, node + ".")) return false;
  const std::vector<std::string> f = absl::StrSplit(group.substr(node.size() + 1), '.');
  int32_t p = 0;
  if (f.size() != 3 || !absl::SimpleAtoi(f[0], &p) || p <= 1 || f[1].empty() || !absl::SimpleAtoi(f[2], epoch)) {
    return false;
  }
  *pid = p;
  *job_id = f[1];
  return true;
}

std::vector<v1::ProcessExit> StopOrphans(LeaseRecords& records, Cgroups& cgroups, const std::string& node,
                                         pid_t self, std::chrono::milliseconds grace) {
  std::map<Lease, std::string> found;  // lease -> how it was found
  std::map<Lease, StartedProcess> running;
  for (const StartedProcess& p : records.Load()) {
    if (p.owner != self && IsSynergyNode(p.owner)) continue;  // another live synergy-node's
    found[{p.job_id, p.epoch}] = "gone while no synergy-node ran (its exit is unknown)";
    if (p.start_ticks != 0 && ProcessStartTicks(p.pid) == p.start_ticks) running[{p.job_id, p.epoch}] = p;
  }
  // Only groups of synergy-node processes that used this state_dir: a
  // node of the same name of another cluster on this machine keeps its own.
  const std::set<pid_t> owners = records.Owners();
  std::set<pid_t> live_owners;
  for (pid_t owner : owners) {
    if (owner != self && IsSynergyNode(owner)) live_owners.insert(owner);
  }
  std::vector<std::string> groups;
  for (const std::string& group : cgroups.GroupsStartingWith(node + ".")) {
    pid_t owner = 0;
    Lease lease;
    if (!ParseJobGroup(group, node, &owner, &lease.first, &lease.second) || owner == self || !owners.count(owner) ||
        IsSynergyNode(owner)) {
      continue;
    }
    groups.push_back(group);
    found.emplace(lease, "gone while no synergy-node ran (its exit is unknown)");
  }
  for (const auto& [lease, p] : running) {
    spdlog::warn("node {}: {} lease {} (pid {}) was left running by a synergy-node that ended: stopping it", node,
                 lease.first, lease.second, p.pid);
    SignalGroup(p.pid, SIGTERM);
    found[lease] = "stopped at node start: left running by a synergy-node that ended";
  }
  std::map<Lease, StartedProcess> left = WaitGone(running, grace);
  for (const auto& [lease, p] : left) SignalGroup(p.pid, SIGKILL);
  left = WaitGone(left, std::chrono::seconds(2));
  for (const auto& [lease, p] : left) {
    spdlog::error("node {}: {} lease {} (pid {}) still runs after SIGKILL", node, lease.first, lease.second, p.pid);
  }
  // What is left in their cgroups left the job's process group (setsid, a
  // double fork): Remove kills it.
  for (const std::string& group : groups) cgroups.Remove(group);
  records.KeepOwners(live_owners, self);
  std::vector<v1::ProcessExit> exits;
  for (const auto& [lease, how] : found) {
    records.Forget(lease.first, lease.second);
    v1::ProcessExit e;
    e.set_job_id(lease.first);
    e.set_epoch(lease.second);
    e.set_exit_code(-1);
    e.set_stopped_by_node(true);
    e.set_reason(how);
    exits.push_back(std::move(e));
  }
  if (!exits.empty()) {
    spdlog::info("node {}: {} lease(s) of an earlier synergy-node found and stopped; synergyd is told with the "
                 "first heartbeat", node, exits.size());
  }
  return exits;
}

}  // namespace synergy::node
