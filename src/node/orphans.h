#pragma once
// What an earlier synergy-node of this name left running: processes it
// started and never saw exit, because it was killed (kill -9) or crashed.
// They are found when a synergy-node starts, before it registers, from the
// records every launch leaves (node/lease_records.h) and from the node's
// own cgroups (groups "<node>.<pid>.<job>.<epoch>" of another synergy-node
// process), and stopped, so that a job never has two live copies: synergyd
// requeues each lease as stopped by the node, and the job resumes from its
// last checkpoint under a new lease.
//
// Stopped rather than taken back: a process this synergy-node did not start
// is not its child, so its exit status could not be known.
#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "node/cgroups.h"
#include "node/lease_records.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::node {

// Stops every recorded process that still runs (the one with the recorded
// start time: a reused pid is left alone): SIGTERM to its process group,
// SIGKILL after `grace`. Then every cgroup of `node`'s name made by a
// synergy-node process that used this state_dir (LeaseRecords::Owners) and
// no longer runs is emptied (SIGKILL) and removed; `self` joins the owners.
// Records and groups of a synergy-node that still runs (another process of
// the same name), or of another state_dir, are left alone.
// Forgets the records. Returns one exit per lease found, stopped by the
// node, for synergyd; logs one line per lease.
std::vector<v1::ProcessExit> StopOrphans(LeaseRecords& records, Cgroups& cgroups, const std::string& node,
                                         pid_t self, std::chrono::milliseconds grace);

// "n1.4242.j-000001.7" made by a synergy-node of `node` -> its pid, job and
// epoch; false for any other name (another node's, or not a job group).
bool ParseJobGroup(const std::string& group, const std::string& node, pid_t* pid, std::string* job_id,
                   int64_t* epoch);

}  // namespace synergy::node
