#include "daemon/state/group_commit.h"

#include <algorithm>
#include <vector>

namespace synergy::daemon {

void MergeBatch(Batch& into, const Batch& later) {
  into.jobs.insert(into.jobs.end(), later.jobs.begin(), later.jobs.end());
  into.events.insert(into.events.end(), later.events.begin(), later.events.end());
  for (const auto& [key, value] : later.counters) {
    auto [it, fresh] = into.counters.emplace(key, value);
    if (!fresh) it->second = std::max(it->second, value);
  }
  for (const auto& [node, drained] : later.drained) into.drained[node] = drained;
  for (const auto& [name, value] : later.secrets) into.secrets.emplace(name, value);
  for (const auto& [node, unix_ms] : later.joined_nodes) into.joined_nodes.emplace(node, unix_ms);
  into.retired.insert(into.retired.end(), later.retired.begin(), later.retired.end());
}

absl::Status GroupCommit::Commit(const Batch& batch) {
  Ticket ticket = Enqueue(batch);
  return Wait(ticket);
}

GroupCommit::Ticket GroupCommit::Enqueue(const Batch& batch) {
  Ticket ticket;
  ticket.waiter_ = std::make_unique<Waiter>(Waiter{&batch});
  absl::MutexLock lock(&mu_);
  queue_.push_back(ticket.waiter_.get());
  return ticket;
}

absl::Status GroupCommit::Wait(Ticket& ticket) {
  Waiter& me = *ticket.waiter_;
  absl::MutexLock lock(&mu_);
  // Wait to be committed by a leader, or to lead: the front of the queue
  // leads once the group before it is done.
  while (!me.done && queue_.front() != &me) turn_.Wait(&mu_);
  if (me.done) return me.status;
  // Leader: everything queued now is one group, committed without the lock
  // so that later callers can queue for the next one.
  std::vector<Waiter*> group(queue_.begin(), queue_.end());
  Batch merged;
  for (Waiter* w : group) MergeBatch(merged, *w->batch);
  mu_.Unlock();
  const absl::Status status = store_.Commit(merged);
  mu_.Lock();
  ++groups_;
  for (Waiter* w : group) {
    w->status = status;
    w->done = true;
    queue_.pop_front();
  }
  turn_.SignalAll();
  return status;
}

int64_t GroupCommit::groups() const {
  absl::MutexLock lock(&mu_);
  return groups_;
}

}  // namespace synergy::daemon
