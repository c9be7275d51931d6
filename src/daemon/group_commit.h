#pragma once
// Group commit: many changes share one transaction, and so one fsync.
// Every commit of synergyd's state goes through here; a caller waits until
// its own batch is stored (or refused) and only then acts on it. The first
// waiting caller commits everything queued behind it as one batch; a store
// that refuses it refuses every batch in it. Thread-safe; callers may hold
// the daemon's lock or not (a submission waits without it, so that other
// submissions can join its group).
#include <deque>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "daemon/store.h"

namespace synergy::daemon {

// `later` folded into `into`, as one transaction would apply both in turn:
// job records upserted in order (the later wins), events appended,
// counters at the larger value (they only grow), node settings the later's.
void MergeBatch(Batch& into, const Batch& later);

class GroupCommit {
 public:
  explicit GroupCommit(Store& store) : store_(store) {}
  absl::Status Commit(const Batch& batch);
  int64_t groups() const;  // transactions run (tests, metrics)

 private:
  struct Waiter {
    const Batch* batch;
    absl::Status status;
    bool done = false;
  };
  Store& store_;
  mutable absl::Mutex mu_;
  std::deque<Waiter*> queue_ ABSL_GUARDED_BY(mu_);  // front: the group's leader while it commits
  int64_t groups_ ABSL_GUARDED_BY(mu_) = 0;
  absl::CondVar turn_;  // a group is done: its waiters return, the next leader starts
};

}  // namespace synergy::daemon
