#include "daemon/state/job_table.h"

#include <algorithm>
#include <set>

#include "daemon/round/round_input.h"
#include "service/names.h"
#include "spdlog/spdlog.h"

namespace synergy::daemon {

int JobTable::ActiveJobsOf(const std::string& owner) const {
  auto pending = submitting_.find(owner);
  int n = pending == submitting_.end() ? 0 : pending->second;
  for (const auto& [id, job] : jobs_.all()) n += job.owner() == owner && !IsTerminal(job.state()) ? 1 : 0;
  return n;
}

void JobTable::Load(v1::Job job) {
  const std::string id = job.id();
  runtime_.Insert(id, Runtime{});
  queue_order_.push_back(id);
  jobs_.Insert(id, std::move(job));
}

std::string JobTable::TakeId(const std::string& owner) {
  ++submitting_[owner];
  return JobIdString(next_id_++);
}

void JobTable::EndSubmission(const std::string& owner) {
  if (auto it = submitting_.find(owner); it != submitting_.end() && --it->second == 0) submitting_.erase(it);
}

void JobTable::Admit(v1::Job job) { Load(std::move(job)); }

bool JobTable::Move(v1::Job& job, JobMove move, const std::string& reason, int64_t now_ms) {
  if (daemon::Move(job, move, reason, now_ms)) {
    if (on_move_) on_move_(job, move, now_ms);
    return true;
  }
  spdlog::error("{}: no move '{}' from {} ({}): left as it is", job.id(), MoveName(move),
                service::JobStateName(job.state()), reason);
  return false;
}

void JobTable::Retire(const std::string& id) {
  jobs_.Erase(id);
  runtime_.Erase(id);
  retired_in_change_.push_back(id);
}

void JobTable::SetQueueOrder(std::vector<std::string> order) {
  const std::set<std::string> seen(order.begin(), order.end());
  for (const std::string& id : queue_order_) {
    if (!seen.count(id)) order.push_back(id);
  }
  queue_order_ = std::move(order);
}

void JobTable::Open() {
  jobs_.Open();
  runtime_.Open();
  dirtied_in_change_.clear();
  retired_in_change_.clear();
  next_id_at_open_ = next_id_;
}

std::vector<std::string> JobTable::Keep() {
  std::vector<std::string> touched;
  jobs_.ForEachTouched([&](const std::string& id) { touched.push_back(id); });
  jobs_.Keep();
  runtime_.Keep();
  dirtied_in_change_.clear();
  if (!retired_in_change_.empty()) {
    const std::set<std::string> retired(retired_in_change_.begin(), retired_in_change_.end());
    std::erase_if(queue_order_, [&](const std::string& id) { return retired.count(id) > 0; });
    for (const std::string& id : retired) dirty_.erase(id);
    retired_in_change_.clear();
  }
  return touched;
}

void JobTable::Undo() {
  jobs_.Undo();
  runtime_.Undo();
  for (const std::string& id : dirtied_in_change_) dirty_.erase(id);
  dirtied_in_change_.clear();
  retired_in_change_.clear();
  next_id_ = next_id_at_open_;
}

void JobTable::NoteProgress(const std::string& id, int64_t iterations_done, double throughput) {
  v1::Job& job = jobs_.Edit(id);
  if (job.spec().iterations() > 0) iterations_done = std::min(iterations_done, job.spec().iterations());
  if (iterations_done > job.iterations_done()) job.set_iterations_done(iterations_done);
  job.set_throughput(throughput);
  MarkDirty(id);
}

void JobTable::MarkDirty(const std::string& id) {
  auto [it, fresh] = dirty_.try_emplace(id, 0);
  it->second = ++marks_;
  if (fresh && jobs_.open()) dirtied_in_change_.push_back(id);
}

void JobTable::AddDirtyJobs(Batch& batch) const {
  for (const auto& [id, mark] : dirty_) {
    if (!batch.job_index.count(id)) batch.PutJob(jobs_.at(id));
  }
}

void JobTable::ForgetStored(const Batch& batch) {
  for (const v1::Job& j : batch.jobs) dirty_.erase(j.id());
}

void JobTable::ForgetFlushed(const std::map<std::string, uint64_t>& marks) {
  for (const auto& [id, mark] : marks) {
    auto it = dirty_.find(id);
    if (it != dirty_.end() && it->second == mark) dirty_.erase(it);
  }
}

}  // namespace synergy::daemon
