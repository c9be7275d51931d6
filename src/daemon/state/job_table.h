#pragma once
// synergyd's jobs, with one owner for each fact about them: a job's record
// (v1::Job, stored, with its current lease), what the daemon knows of a job
// only while it runs (JobTable::Runtime, not stored), the queue order the
// last round left, the job id counter, submissions prepared but not yet
// stored, and which records changed in memory only (progress, service
// time) since the store last took them.
//
// Jobs change state only through Move (job_lifecycle.h's named moves).
// Records and runtimes change only through Edit and EditRuntime, which are
// journaled while a change is open (Open): Undo puts back every job the
// change touched, its dirty marks and the id counter; Keep makes them stay.
// Ids are taken by TakeId outside any change (a submission is stored
// without the daemon's lock) and never given back: a refused submission
// leaves a gap, never an id given twice.
#include <functional>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "daemon/state/job_lifecycle.h"
#include "daemon/state/journaled_map.h"
#include "daemon/state/store.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class JobTable {
 public:
  struct Runtime {
    bool finished = false;           // the agent confirmed its last iteration
    bool stopping = false;           // cancelled or failed: stop orders out
    bool profile_wait_told = false;  // its event says it runs unprofiled for now
    int64_t checkpoint_event_ms = 0;  // its last "checkpoint at" event (coalescing)
  };
  using Records = std::map<std::string, v1::Job>;

  // ---- reading
  const Records& all() const { return jobs_.all(); }
  Records::const_iterator find(const std::string& id) const { return jobs_.find(id); }
  Records::const_iterator end() const { return jobs_.end(); }
  const v1::Job& at(const std::string& id) const { return jobs_.at(id); }
  size_t count(const std::string& id) const { return jobs_.count(id); }
  size_t size() const { return jobs_.size(); }
  // The job must exist.
  const Runtime& RuntimeOf(const std::string& id) const { return runtime_.at(id); }
  // Every job, in the order the last round left (later arrivals at the end).
  const std::vector<std::string>& queue_order() const { return queue_order_; }
  // Jobs of `owner` that have not ended, with its submissions still being
  // stored (so concurrent submissions cannot pass a per-user limit).
  int ActiveJobsOf(const std::string& owner) const;
  // The counter to store with a submission that took the latest id.
  int64_t next_id() const { return next_id_; }

  // ---- loading (before anything else; not journaled)
  void RestoreNextId(int64_t next) { next_id_ = next; }
  // A stored job, queued after those loaded before it.
  void Load(v1::Job job);

  // ---- submitting (outside a change)
  // Takes the next id for a submission of `owner`, counted as in flight
  // until EndSubmission.
  std::string TakeId(const std::string& owner);
  void EndSubmission(const std::string& owner);
  // A stored submission becomes known, queued last.
  void Admit(v1::Job job);

  // ---- changing (journaled while a change is open)
  v1::Job& Edit(const std::string& id) { return jobs_.Edit(id); }
  Runtime& EditRuntime(const std::string& id) { return runtime_.Edit(id); }
  // `move` on the job (job_lifecycle.h); a move its state does not allow is
  // logged as the bug it is and changes nothing (false).
  bool Move(v1::Job& job, JobMove move, const std::string& reason, int64_t now_ms);
  // Told of every move made (the job as moved), e.g. for /metrics.
  void OnMove(std::function<void(const v1::Job&, JobMove, int64_t now_ms)> observer) {
    on_move_ = std::move(observer);
  }
  // The job (ended, holding nothing, its record stored) leaves the table:
  // the change's batch carries it to the store's history (Batch::retired).
  // Undone with the change; once kept, it leaves the queue order too.
  void Retire(const std::string& id);
  // The round's order, followed by the jobs it did not see (submitted while
  // it planned) in the order they were queued.
  void SetQueueOrder(std::vector<std::string> order);

  // ---- the change protocol (DaemonState::Change)
  void Open();
  // The change stays; the ids of the jobs it touched.
  std::vector<std::string> Keep();
  void Undo();

  // An agent's report, in memory (stored with the next commit or flush):
  // the count only grows and never runs past the iterations the job asked
  // for (it would make its remaining work look done to SRTF and the
  // estimates); the throughput is the latest.
  void NoteProgress(const std::string& id, int64_t iterations_done, double throughput);

  // ---- progress not yet stored
  // The job's record changed in memory only: the next commit stores it.
  // Each mark is newer than the last, so a flush forgets only what it stored.
  void MarkDirty(const std::string& id);
  // Adds the dirty jobs the batch does not already carry.
  void AddDirtyJobs(Batch& batch) const;
  // `batch` is stored, committed under the daemon's lock: each record in it
  // is its job's latest.
  void ForgetStored(const Batch& batch);
  bool dirty(const std::string& id) const { return dirty_.count(id) > 0; }
  // Each dirty job's latest mark, to hand back to ForgetFlushed.
  const std::map<std::string, uint64_t>& dirty_marks() const { return dirty_; }
  // A flush stored the jobs as they were at `marks`: those not marked again
  // since are clean.
  void ForgetFlushed(const std::map<std::string, uint64_t>& marks);

 private:
  JournaledMap<std::string, v1::Job> jobs_;
  JournaledMap<std::string, Runtime> runtime_;
  std::vector<std::string> queue_order_;
  std::map<std::string, int> submitting_;  // owner -> submissions taken, not yet ended
  int64_t next_id_ = 1;
  std::map<std::string, uint64_t> dirty_;  // job -> its latest mark
  uint64_t marks_ = 0;
  // What the open change did, for Undo.
  std::vector<std::string> dirtied_in_change_;
  std::vector<std::string> retired_in_change_;
  int64_t next_id_at_open_ = 1;
  std::function<void(const v1::Job&, JobMove, int64_t)> on_move_;
};

}  // namespace synergy::daemon
