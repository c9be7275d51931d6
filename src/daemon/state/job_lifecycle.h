#pragma once
// A job's states and the named moves between them. Each move says which
// states it leaves from; nothing leaves a terminal state (SUCCEEDED, FAILED,
// CANCELLED, TIMED_OUT), so a job reported done never runs again. DaemonState moves
// jobs only through Move; a move from a state it does not leave from is a
// bug in the caller: it changes nothing and returns false (the caller logs).
//
//   PENDING    --Wait-->      QUEUED       (the first round left it waiting)
//   QUEUED     --Wait-->      QUEUED       (a new reason to wait)
//   any live   --Grant-->     RUNNING      (a round granted a lease)
//   RUNNING    --Launch-->    RUNNING      (its processes started)
//   waiting    --Profile-->   PROFILING    (a whole node lent to measure it)
//   any live   --Requeue-->   QUEUED       (lease gone before it ended: crash retry, lost node, ...)
//   RUNNING, PROFILING --Suspend--> SUSPENDED (checkpointed or stopped at lease end)
//   any live   --Succeed-->   SUCCEEDED
//   any live   --Fail-->      FAILED
//   any live   --Cancel-->    CANCELLED
//   any live   --TimeOut-->   TIMED_OUT    (it ran for its time limit)
// ("live": not terminal; "waiting": PENDING, QUEUED or SUSPENDED.)
#include <cstdint>
#include <string>

#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

enum class JobMove { kWait, kGrant, kLaunch, kProfile, kRequeue, kSuspend, kSucceed, kFail, kCancel, kTimeOut };

bool IsTerminal(v1::JobState state);
// Whether `move` leaves from `from`.
bool MoveAllowed(JobMove move, v1::JobState from);
// The state `move` leads to.
v1::JobState MoveTarget(JobMove move);
const char* MoveName(JobMove move);

// Moves `job` (state, reason, updated and, into a terminal state, finished
// time); false and no change when the move does not leave from its state.
bool Move(v1::Job& job, JobMove move, const std::string& reason, int64_t now_ms);

// Where its leases ran, kept with the job: the latest kMaxLeaseNodes.
inline constexpr int kMaxLeaseNodes = 32;
// Adds `lease`'s nodes (by rank) to job.lease_nodes, dropping the oldest.
void NoteLeaseNodes(v1::Job& job, const v1::Lease& lease);
// Removes lease `epoch` from job.lease_nodes: it was withdrawn before it
// launched, so no node holds its output and `logs` must not point there.
void ForgetLeaseNodes(v1::Job& job, int64_t epoch);

}  // namespace synergy::daemon
