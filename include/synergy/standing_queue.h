#pragma once
// The round's queue kept in order between rounds, for policies whose key
// moves only when a job's view does (FIFO, SRTF, LAS; not FTF): a round
// costs the jobs that changed and the jobs the mechanism looks at, not the
// whole waiting queue, which at saturation grows with time (issue 20).
//
// Contract: ScheduleStandingRound gives the same plan and the same bumped
// jobs as ScheduleRound (round.h) on the queue a caller would have passed
// it: the previous round's order, then the jobs added since, in the order
// they were added. Tests run both side by side (standing_queue_test.cc).
//
// How the stable sort is kept without sorting: jobs sit in order of
// (priority class, policy key, label). A label only breaks ties between
// equal keys, and a stable sort breaks them by the previous order. A job
// whose key did not change keeps its label: among equal keys the previous
// order was by label. A job whose key went up came, in the previous order,
// before every job that now has its key, so it takes a label below every
// label given so far (those that moved together in their previous order);
// one whose key went down, or a job just added, takes a label above all.
//
// The caller owns the JobViews; each must outlive its time in the queue.
// It says which views changed (Touch) before the next round: any field a
// key or the starvation guard reads (progress, service, speedup, priority,
// last execution end). A job's wait start (its last execution end, else
// its arrival) never moves back. Not thread-safe.
#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"

#include "synergy/cluster.h"
#include "synergy/job.h"
#include "synergy/mechanism.h"
#include "synergy/placement_state.h"
#include "synergy/plan.h"
#include "synergy/policy.h"
#include "synergy/round.h"

namespace synergy {

class StandingQueue {
  using Key = std::array<double, 4>;  // -priority class, then the policy's key
  struct Entry {
    Key key;
    int64_t label = 0;
    const JobView* job = nullptr;
    int gpus = 0;  // the bucket it sits in (its GPU count when it was keyed)
    // Strict weak order even for a NaN key: equal unless one is below.
    bool operator<(const Entry& other) const {
      if (key < other.key) return true;
      if (other.key < key) return false;
      return label < other.label;
    }
  };
  // A B-tree: a round walks many jobs in order, and a walk over a red-black
  // tree's nodes was most of the queue's cost at 131,072 jobs.
  using Bucket = absl::btree_set<Entry>;

 public:
  // The order of `policy` for rounds placed by `mechanism` (whose speedup
  // use SRTF's key reads, as SelectForRound's context). Precondition:
  // !policy.key_moves_with_time().
  StandingQueue(const Policy& policy, const Mechanism& mechanism, bool reference_compatible);

  const Policy& policy() const { return *policy_; }
  const Mechanism& mechanism() const { return *mechanism_; }
  size_t size() const { return slots_.size(); }
  bool empty() const { return slots_.empty(); }

  // A new job, behind every job already queued. Precondition: not queued.
  void Add(const JobView* job);
  // A job that leaves (finished, cancelled); it need not be touched first.
  void Remove(const JobView* job);
  // The job's view changed since the last round.
  void Touch(const JobView* job);

  // The first job of the order the next round sees; nullptr when empty.
  // It takes in the changes told so far, as a round does: call it once a
  // round's changes are all told, or ties may break otherwise.
  const JobView* Front();
  // The whole order the next round sees (as Front; O(n), for tests).
  std::vector<const JobView*> InOrder();

  // Phase 2 of a round: the jobs whose priority is not 1 and that have
  // waited over kStarvationLimitS at `now_s` since they last ran (or
  // arrived), in queue order. They stay starved until their priority is 1.
  std::vector<const JobView*> Starved(double now_s);

  // The queue in order, one job at a time (phases 1 and 3), looking only
  // at jobs whose GPU count fits. Valid until the queue next changes.
  // Precondition: max_gpus never grows from one call to the next (free
  // GPUs never come back within a round).
  class Walk final : public Candidates {
   public:
    const JobView* NextFitting(int max_gpus) override;

   private:
    friend class StandingQueue;
    struct Cursor {
      int gpus;
      Bucket::const_iterator at;
      Bucket::const_iterator end;
    };
    std::vector<Cursor> cursors_;  // ascending GPU count
  };
  Walk Begin();

 private:
  struct Slot {
    Entry entry;
    bool ordered = false;  // false: added since the last round
    bool touched = false;
    bool watched = false;    // in waits_
    double waits_from = 0;   // its time there
  };

  Key KeyOf(const JobView& job) const;
  static double WaitsFrom(const JobView& job);
  void Settle();  // takes in the adds and touches since the last round
  void Insert(const Entry& entry);
  void Erase(const Entry& entry);
  // Keeps the job in waits_ while it can be bumped.
  void Watch(Slot& slot);

  const Policy* policy_;
  const Mechanism* mechanism_;
  PolicyContext context_;
  // Nodes, allocated as jobs are added: a round touches its jobs in about
  // that order, where a flat table's slots are scattered over many MB.
  std::unordered_map<const JobView*, Slot> slots_;
  std::vector<const JobView*> added_;    // in the order added
  std::vector<const JobView*> touched_;  // may name jobs since removed
  // The ordered jobs by GPU count: a walk merges them, and skips the
  // counts that do not fit instead of the jobs.
  std::map<int, Bucket> by_gpus_;
  int64_t next_low_ = -1;
  int64_t next_high_ = 0;
  // The jobs that can still be bumped (priority not 1) by the start of
  // their wait, earliest first. A job that ran since it was put here sits
  // at an earlier start than its own (Starved brings it up to date): a
  // running job costs nothing here each round.
  absl::btree_set<std::pair<double, const JobView*>> waits_;
};

// ScheduleRound (round.h) on a standing queue, with its policy and
// mechanism: the same plan and bumped jobs; `order` is left empty (the
// queue is the order).
RoundResult ScheduleStandingRound(StandingQueue& queue, double now_s, const Cluster& cluster,
                                  GpuPlacement gpu_placement);

}  // namespace synergy
