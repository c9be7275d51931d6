#pragma once
// Where leases are. The one owner of epochs; of the leases that are ending
// (ended by a round, a crash or a leaving node, with processes that have
// not all exited yet); of which leases, current or ending, have a rank on
// each node; of the GPU and CPU ids each node has granted and each
// launched process holds; and of the stop orders a node is given until its
// reports no longer show the process. A job's current lease is its
// record's (v1::Job.lease, stored with the job); the table indexes it by
// node from its grant to its drop, so that a node's heartbeat, loss or
// leaving touches the node's own leases, not every job's.
//
// Two questions about ids, two answers: an id is free to grant when no
// current lease has it (an ending lease's ids are planned again at once),
// and free to launch on when no launched process holds it (a launch waits
// for the ending lease's exit).
//
// Changes journal while a change is open (Open), like JournaledMap's, so
// that DaemonState's Change undoes them with the rest.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "daemon/state/journaled_map.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// The lease's rank on `node` (a lease has at most one per node), or null.
inline const v1::LeaseSlice* SliceOn(const v1::Lease& lease, const std::string& node) {
  for (const v1::LeaseSlice& s : lease.slices()) {
    if (s.node() == node) return &s;
  }
  return nullptr;
}

// A lease that ended while its processes may still run.
struct EndingLease {
  v1::Lease lease;
  int64_t since_ms = 0;
  bool stop_sent = false;
  std::set<std::string> exited;  // nodes whose rank has exited
  int64_t stop_at = 0;           // rank 0's choice of the last iteration
  // Ended after a daemon restart before its nodes reported it: a node
  // that has not registered again by then is taken to have lost it.
  int64_t unadopted_until_ms = 0;
};

class LeaseTable {
 public:
  using JobEpoch = std::pair<std::string, int64_t>;

  // Epochs are never given twice: the next one is stored with every grant
  // (DaemonState) and restored at start.
  int64_t next_epoch() const { return next_epoch_; }
  int64_t TakeEpoch() { return next_epoch_++; }
  void RestoreNextEpoch(int64_t next) { next_epoch_ = next; }

  // A job's current lease was granted (or loaded at start) / dropped.
  void IndexCurrent(const v1::Lease& lease);
  void ForgetCurrent(const v1::Lease& lease);
  // A current lease amended in place (resize): the CPU ids it grants
  // become `after`'s. Its launch state stays.
  void AmendCurrent(const v1::Lease& before, const v1::Lease& after);
  // Jobs whose current lease has a rank on `node`.
  const std::set<std::string>& CurrentOn(const std::string& node) const;

  // A current lease's processes: the nodes its launch went to, where its
  // ranks exited, and (loaded after a restart) until when its nodes may
  // report it. Made empty when the lease is indexed, gone when it is
  // forgotten.
  struct Launch {
    // Nodes whose reports have shown its process (running or exited).
    std::set<std::string> launched_on;
    // Nodes a launch order went to whose reports have not shown the
    // process yet, with how many orders each has had: the order repeats
    // every heartbeat until a report shows it (a reply may be lost).
    std::map<std::string, int> ordered_on;
    // Nodes whose reports said the order was taken but the process has not
    // started (queued in Slurm): said once in the job's events.
    std::set<std::string> queued_on;
    std::set<std::string> exited_on;
    int64_t adopt_deadline_ms = 0;  // after a restart: 0 = adopted or new
    // Its time held is counted from here (launch, re-adoption, or the last
    // progress flush); 0 = not running.
    int64_t service_from_ms = 0;
    // Resize in place: the revision its node reports applied (in memory: a
    // node reports it with every heartbeat), and, while a lowered memory
    // limit waits for the job to shed, when the node lowers it anyway.
    int64_t node_revision = 0;
    int64_t shed_deadline_ms = 0;
    // It has (or, ordered or after a restart, may have) processes.
    bool launched() const { return !launched_on.empty() || !ordered_on.empty() || adopt_deadline_ms > 0; }
  };
  const Launch& LaunchOf(const std::string& job) const;  // an empty one when it holds no lease
  Launch& EditLaunch(const std::string& job);             // it must hold one
  // Jobs whose current lease has processes (by job).
  const std::map<std::string, Launch>& all_launches() const { return launches_.all(); }

  // Ids on `node` that current leases have: a grant takes others.
  const std::set<int>& GrantedGpus(const std::string& node) const;
  const std::set<int>& GrantedCpus(const std::string& node) const;

  // Ids a launched process holds until its exit is reported (or its node
  // is lost or registers again).
  struct HeldIds {
    std::vector<int> gpus, cpus;
  };
  void Hold(const std::string& node, const JobEpoch& lease, HeldIds ids);
  void Release(const std::string& node, const JobEpoch& lease);
  void ReleaseAll(const std::string& node);
  bool Holds(const std::string& node, const JobEpoch& lease) const;
  const std::map<JobEpoch, HeldIds>& HeldOn(const std::string& node) const;

  // Stop orders for `node`: one per process (a repeated order keeps the
  // shorter grace). An order is not taken for delivered: it goes with the
  // reply to every heartbeat that still reports its process (StopsFor), and
  // is dropped once one does not.
  void OrderStop(const std::string& node, const v1::StopOrder& stop);
  std::vector<v1::StopOrder> StopsFor(const std::string& node, const std::set<JobEpoch>& running);
  void DropStops(const std::string& node);

  // `ending.lease` (job id and epoch) is ending.
  void StartEnding(EndingLease ending);
  const EndingLease* FindEnding(const std::string& job, int64_t epoch) const;
  // The same, to change (journaled); null when there is none.
  EndingLease* EditEnding(const std::string& job, int64_t epoch);
  // Every rank has exited (or its node is gone): the lease is over.
  void FinishEnding(const std::string& job, int64_t epoch);
  bool AnyEnding(const std::string& job) const { return ending_.count(job) > 0; }
  // The job's ending leases by epoch (empty when none).
  const std::map<int64_t, EndingLease>& EndingOf(const std::string& job) const;
  // Jobs with an ending lease, and theirs.
  const std::map<std::string, std::map<int64_t, EndingLease>>& all_ending() const { return ending_.all(); }
  // Ending leases with a rank on `node`.
  const std::set<JobEpoch>& EndingOn(const std::string& node) const;
  // Anything of `job` still in the table: a current lease's launch, an
  // ending lease, ids a process of it holds, or a stop order for it (a
  // walk over the nodes).
  bool AnyOf(const std::string& job) const;

  void Open();
  void Keep();
  void Undo();

 private:
  JournaledMap<std::string, std::map<int64_t, EndingLease>> ending_;  // by job
  JournaledMap<std::string, std::set<std::string>> current_on_;       // by node
  JournaledMap<std::string, std::set<JobEpoch>> ending_on_;           // by node
  struct Granted {
    std::set<int> gpus, cpus;
  };
  JournaledMap<std::string, Granted> granted_;                        // by node
  JournaledMap<std::string, Launch> launches_;                        // by job, its current lease
  JournaledMap<std::string, std::map<JobEpoch, HeldIds>> held_;       // by node
  JournaledMap<std::string, std::vector<v1::StopOrder>> stops_;       // by node
  int64_t next_epoch_ = 1;
  int64_t next_epoch_at_open_ = 1;
};

}  // namespace synergy::daemon
