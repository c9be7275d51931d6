#include "synergy/standing_queue.h"

#include <algorithm>
#include <cassert>

namespace synergy {

StandingQueue::StandingQueue(const Policy& policy, const Mechanism& mechanism, bool reference_compatible)
    : policy_(&policy), mechanism_(&mechanism) {
  assert(!policy.key_moves_with_time());
  context_.mechanism_uses_speedup = mechanism.uses_speedup();
  context_.reference_compatible = reference_compatible;
}

StandingQueue::Key StandingQueue::KeyOf(const JobView& job) const {
  const OrderKey k = policy_->Key(job, context_);
  // Higher classes first, as SelectForRound's stable sort by class after
  // the policy's. Its other rank, running jobs that cannot checkpoint
  // first, changes as jobs start and stop: a queue of standing keys serves
  // only jobs that all checkpoint (the simulator's).
  assert(!job.runs_without_checkpoint);
  return {-static_cast<double>(job.priority_class), k[0], k[1], k[2]};
}

double StandingQueue::WaitsFrom(const JobView& job) {
  return job.last_execution_end_s < 0 ? job.arrival_s : job.last_execution_end_s;
}

void StandingQueue::Add(const JobView* job) {
  Slot& slot = slots_[job];
  assert(!slot.ordered);
  slot = Slot{};
  slot.entry.job = job;
  added_.push_back(job);
}

void StandingQueue::Remove(const JobView* job) {
  auto it = slots_.find(job);
  if (it == slots_.end()) return;
  if (it->second.ordered) {
    Erase(it->second.entry);
  } else {
    // Not yet ordered: a later job at this address is added anew.
    std::erase(added_, job);
  }
  if (it->second.watched) waits_.erase({it->second.waits_from, job});
  slots_.erase(it);
}

void StandingQueue::Watch(Slot& slot) {
  const JobView* job = slot.entry.job;
  const bool can_be_bumped = job->priority != 1;
  if (can_be_bumped == slot.watched) return;  // its time is brought up to date when met
  if (can_be_bumped) {
    slot.waits_from = WaitsFrom(*job);
    waits_.insert({slot.waits_from, job});
  } else {
    waits_.erase({slot.waits_from, job});
  }
  slot.watched = can_be_bumped;
}

void StandingQueue::Touch(const JobView* job) {
  auto it = slots_.find(job);
  // A job added since the last round is keyed when it is ordered.
  if (it == slots_.end() || !it->second.ordered || it->second.touched) return;
  it->second.touched = true;
  touched_.push_back(job);
}

void StandingQueue::Insert(const Entry& entry) { by_gpus_[entry.gpus].insert(entry); }

void StandingQueue::Erase(const Entry& entry) {
  auto bucket = by_gpus_.find(entry.gpus);
  bucket->second.erase(entry);
  if (bucket->second.empty()) by_gpus_.erase(bucket);
}

void StandingQueue::Settle() {
  // A job whose key went up was, in the previous order, before every job
  // that has its new key; one whose key went down was after them all.
  struct Move {
    Entry was;
    Key key;
  };
  std::vector<Move> up;
  std::vector<Move> down;
  for (const JobView* job : touched_) {
    auto it = slots_.find(job);
    if (it == slots_.end() || !it->second.touched) continue;  // removed since
    Slot& slot = it->second;
    slot.touched = false;
    Watch(slot);
    const Key key = KeyOf(*job);
    if (key == slot.entry.key) {
      // The same key: it keeps its place, in the bucket of its GPUs.
      if (job->gpus != slot.entry.gpus) {
        Erase(slot.entry);
        slot.entry.gpus = job->gpus;
        Insert(slot.entry);
      }
      continue;
    }
    (slot.entry.key < key ? up : down).push_back(Move{slot.entry, key});
  }
  touched_.clear();
  const auto by_previous_order = [](const Move& a, const Move& b) { return a.was < b.was; };
  std::sort(up.begin(), up.end(), by_previous_order);
  std::sort(down.begin(), down.end(), by_previous_order);
  for (const Move& m : up) Erase(m.was);
  for (const Move& m : down) Erase(m.was);
  // Below every label so far, in their previous order.
  for (auto m = up.rbegin(); m != up.rend(); ++m) {
    Entry& entry = slots_.at(m->was.job).entry;
    entry = Entry{m->key, next_low_--, m->was.job, m->was.job->gpus};
    Insert(entry);
  }
  // Above every label so far: first the moved, then the added (the caller's
  // queue has the added behind the previous order).
  for (const Move& m : down) {
    Entry& entry = slots_.at(m.was.job).entry;
    entry = Entry{m.key, next_high_++, m.was.job, m.was.job->gpus};
    Insert(entry);
  }
  for (const JobView* job : added_) {
    auto it = slots_.find(job);
    if (it == slots_.end() || it->second.ordered) continue;  // removed, or a later add at its address
    Slot& slot = it->second;
    slot.ordered = true;
    slot.entry = Entry{KeyOf(*job), next_high_++, job, job->gpus};
    Watch(slot);
    Insert(slot.entry);
  }
  added_.clear();
}

const JobView* StandingQueue::Front() {
  Settle();
  const Entry* first = nullptr;
  for (const auto& [gpus, jobs] : by_gpus_) {
    if (first == nullptr || *jobs.begin() < *first) first = &*jobs.begin();
  }
  return first == nullptr ? nullptr : first->job;
}

std::vector<const JobView*> StandingQueue::InOrder() {
  Settle();
  std::vector<Entry> entries;
  entries.reserve(slots_.size());
  for (const auto& [gpus, jobs] : by_gpus_) entries.insert(entries.end(), jobs.begin(), jobs.end());
  std::sort(entries.begin(), entries.end());
  std::vector<const JobView*> order;
  order.reserve(entries.size());
  for (const Entry& e : entries) order.push_back(e.job);
  return order;
}

std::vector<const JobView*> StandingQueue::Starved(double now_s) {
  Settle();
  // round.cc's test. A wait is kept at the start it had when the job was
  // last met here; it only moves later, so the jobs met first are the only
  // ones that can be starved.
  const auto starved_at = [&](double from) { return now_s - from > kStarvationLimitS; };
  std::vector<std::pair<double, const JobView*>> met;
  for (auto w = waits_.begin(); w != waits_.end() && starved_at(w->first); ++w) met.push_back(*w);
  std::vector<Entry> starved;
  for (const auto& [from, job] : met) {
    Slot& slot = slots_.at(job);
    const double now_from = WaitsFrom(*job);
    if (now_from != from) {
      waits_.erase({from, job});
      waits_.insert({now_from, job});
      slot.waits_from = now_from;
      if (!starved_at(now_from)) continue;
    }
    starved.push_back(slot.entry);
  }
  std::sort(starved.begin(), starved.end());
  std::vector<const JobView*> jobs;
  jobs.reserve(starved.size());
  for (const Entry& e : starved) jobs.push_back(e.job);
  return jobs;
}

StandingQueue::Walk StandingQueue::Begin() {
  Settle();
  Walk walk;
  for (const auto& [gpus, jobs] : by_gpus_) walk.cursors_.push_back(Walk::Cursor{gpus, jobs.begin(), jobs.end()});
  return walk;
}

const JobView* StandingQueue::Walk::NextFitting(int max_gpus) {
  Cursor* best = nullptr;
  for (Cursor& c : cursors_) {
    if (c.gpus > max_gpus) break;  // ascending: no later count fits either
    if (c.at != c.end && (best == nullptr || *c.at < *best->at)) best = &c;
  }
  if (best == nullptr) return nullptr;
  return (best->at++)->job;
}

RoundResult ScheduleStandingRound(StandingQueue& queue, double now_s, const Cluster& cluster,
                                  GpuPlacement gpu_placement) {
  PlacementState state(cluster, gpu_placement);
  RoundResult result;
  result.bumped = queue.Starved(now_s);
  StandingQueue::Walk walk = queue.Begin();
  const Mechanism& mechanism = queue.mechanism();
  if (queue.policy().selection() == Selection::kWalkQueue) {
    mechanism.PlaceFrom(walk, state);
  } else {
    // Count-fit first (round.cc's SelectRunnable): the jobs in order whose
    // GPUs fit by count alone, then offered as the mechanism asks.
    std::vector<const JobView*> picked;
    int free = state.free_gpus();
    while (free > 0) {
      const JobView* job = walk.NextFitting(free);
      if (job == nullptr) break;
      picked.push_back(job);
      free -= job->gpus;
    }
    if (mechanism.prefers_large_jobs_first()) OfferLargestFirst(picked);
    mechanism.Place(picked, state);
  }
  result.plan = state.TakePlan();
  return result;
}

}  // namespace synergy
