#pragma once
// Group commit: many changes share one transaction, and so one fsync.
// Every commit of synergyd's state goes through here; a caller waits until
// its own batch is stored (or refused) and only then acts on it. The first
// waiting caller commits everything queued behind it as one batch; a store
// that refuses it refuses every batch in it. Thread-safe; callers may hold
// the daemon's lock or not (a submission waits without it, so that other
// submissions can join its group).
#include <deque>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/state/store.h"

namespace synergy::daemon {

// `later` folded into `into`, as one transaction would apply both in turn:
// job records upserted in order (the later wins), events appended,
// counters at the larger value (they only grow), node settings the later's.
void MergeBatch(Batch& into, const Batch& later);

class GroupCommit {
 private:
  struct Waiter {
    const Batch* batch;
    absl::Status status;
    bool done = false;
  };

 public:
  explicit GroupCommit(Store& store) : store_(store) {}
  // Enqueue and Wait.
  absl::Status Commit(const Batch& batch) ABSL_LOCKS_EXCLUDED(mu_);
  // A place in the queue: batches are stored in the order they are
  // enqueued, so a caller may take its place under the daemon's lock (no
  // later change can be stored before it) and wait without it.
  class Ticket {
   private:
    friend class GroupCommit;
    std::unique_ptr<Waiter> waiter_;
  };
  // `batch` must outlive Wait, and every ticket must be waited for: the
  // batches queued behind it wait for it to lead. A caller that holds a
  // ticket must not commit anything else before waiting on it.
  Ticket Enqueue(const Batch& batch) ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Wait(Ticket& ticket) ABSL_LOCKS_EXCLUDED(mu_);
  int64_t groups() const ABSL_LOCKS_EXCLUDED(mu_);  // transactions run (tests, metrics)

 private:
  Store& store_;
  mutable absl::Mutex mu_;
  std::deque<Waiter*> queue_ ABSL_GUARDED_BY(mu_);  // front: the group's leader while it commits
  int64_t groups_ ABSL_GUARDED_BY(mu_) = 0;
  absl::CondVar turn_;  // a group is done: its waiters return, the next leader starts
};

}  // namespace synergy::daemon
