#include "daemon/state/lease_table.h"

#include <algorithm>

namespace synergy::daemon {
namespace {

const std::set<std::string> kNoJobs;
const std::set<LeaseTable::JobEpoch> kNoLeases;
const std::map<int64_t, EndingLease> kNoEnding;
const std::set<int> kNoIds;
const LeaseTable::Launch kNotLaunched;
const std::map<LeaseTable::JobEpoch, LeaseTable::HeldIds> kNoneHeld;

}  // namespace

void LeaseTable::IndexCurrent(const v1::Lease& lease) {
  launches_.Insert(lease.job_id(), Launch{});
  for (const v1::LeaseSlice& s : lease.slices()) {
    current_on_.EditOrAdd(s.node()).insert(lease.job_id());
    Granted& granted = granted_.EditOrAdd(s.node());
    granted.gpus.insert(s.gpu_ids().begin(), s.gpu_ids().end());
    granted.cpus.insert(s.cpu_ids().begin(), s.cpu_ids().end());
  }
}

void LeaseTable::ForgetCurrent(const v1::Lease& lease) {
  if (launches_.count(lease.job_id())) launches_.Erase(lease.job_id());
  for (const v1::LeaseSlice& s : lease.slices()) {
    if (current_on_.count(s.node())) {
      std::set<std::string>& jobs = current_on_.Edit(s.node());
      jobs.erase(lease.job_id());
      if (jobs.empty()) current_on_.Erase(s.node());
    }
    if (granted_.count(s.node())) {
      Granted& granted = granted_.Edit(s.node());
      for (int g : s.gpu_ids()) granted.gpus.erase(g);
      for (int c : s.cpu_ids()) granted.cpus.erase(c);
      if (granted.gpus.empty() && granted.cpus.empty()) granted_.Erase(s.node());
    }
  }
}

void LeaseTable::AmendCurrent(const v1::Lease& before, const v1::Lease& after) {
  for (const v1::LeaseSlice& s : before.slices()) {
    if (!granted_.count(s.node())) continue;
    Granted& granted = granted_.Edit(s.node());
    for (int c : s.cpu_ids()) granted.cpus.erase(c);
  }
  for (const v1::LeaseSlice& s : after.slices()) {
    Granted& granted = granted_.EditOrAdd(s.node());
    granted.cpus.insert(s.cpu_ids().begin(), s.cpu_ids().end());
  }
}

const LeaseTable::Launch& LeaseTable::LaunchOf(const std::string& job) const {
  auto it = launches_.find(job);
  return it == launches_.end() ? kNotLaunched : it->second;
}

LeaseTable::Launch& LeaseTable::EditLaunch(const std::string& job) { return launches_.Edit(job); }

const std::set<int>& LeaseTable::GrantedGpus(const std::string& node) const {
  auto it = granted_.find(node);
  return it == granted_.end() ? kNoIds : it->second.gpus;
}

const std::set<int>& LeaseTable::GrantedCpus(const std::string& node) const {
  auto it = granted_.find(node);
  return it == granted_.end() ? kNoIds : it->second.cpus;
}

void LeaseTable::Hold(const std::string& node, const JobEpoch& lease, HeldIds ids) {
  held_.EditOrAdd(node)[lease] = std::move(ids);
}

void LeaseTable::Release(const std::string& node, const JobEpoch& lease) {
  if (!Holds(node, lease)) return;
  auto& on_node = held_.Edit(node);
  on_node.erase(lease);
  if (on_node.empty()) held_.Erase(node);
}

void LeaseTable::ReleaseAll(const std::string& node) {
  if (held_.count(node)) held_.Erase(node);
}

bool LeaseTable::Holds(const std::string& node, const JobEpoch& lease) const {
  auto it = held_.find(node);
  return it != held_.end() && it->second.count(lease) > 0;
}

const std::map<LeaseTable::JobEpoch, LeaseTable::HeldIds>& LeaseTable::HeldOn(const std::string& node) const {
  auto it = held_.find(node);
  return it == held_.end() ? kNoneHeld : it->second;
}

void LeaseTable::OrderStop(const std::string& node, const v1::StopOrder& stop) {
  std::vector<v1::StopOrder>& queued = stops_.EditOrAdd(node);
  for (v1::StopOrder& q : queued) {
    if (q.job_id() == stop.job_id() && q.epoch() == stop.epoch()) {
      q.set_grace_ms(std::min(q.grace_ms(), stop.grace_ms()));
      return;
    }
  }
  queued.push_back(stop);
}

std::vector<v1::StopOrder> LeaseTable::StopsFor(const std::string& node, const std::set<JobEpoch>& running) {
  if (!stops_.count(node)) return {};
  std::vector<v1::StopOrder> wanted;
  for (const v1::StopOrder& s : stops_.at(node)) {
    if (running.count({s.job_id(), s.epoch()})) wanted.push_back(s);
  }
  if (wanted.empty()) {
    stops_.Erase(node);
  } else if (wanted.size() != stops_.at(node).size()) {
    stops_.EditOrAdd(node) = wanted;
  }
  return wanted;
}

void LeaseTable::DropStops(const std::string& node) {
  if (stops_.count(node)) stops_.Erase(node);
}

const std::set<std::string>& LeaseTable::CurrentOn(const std::string& node) const {
  auto it = current_on_.find(node);
  return it == current_on_.end() ? kNoJobs : it->second;
}

void LeaseTable::StartEnding(EndingLease ending) {
  const std::string job = ending.lease.job_id();
  const int64_t epoch = ending.lease.epoch();
  for (const v1::LeaseSlice& s : ending.lease.slices()) ending_on_.EditOrAdd(s.node()).insert({job, epoch});
  ending_.EditOrAdd(job)[epoch] = std::move(ending);
}

const EndingLease* LeaseTable::FindEnding(const std::string& job, int64_t epoch) const {
  auto it = ending_.find(job);
  if (it == ending_.end()) return nullptr;
  auto e = it->second.find(epoch);
  return e == it->second.end() ? nullptr : &e->second;
}

EndingLease* LeaseTable::EditEnding(const std::string& job, int64_t epoch) {
  if (FindEnding(job, epoch) == nullptr) return nullptr;
  return &ending_.Edit(job).at(epoch);
}

void LeaseTable::FinishEnding(const std::string& job, int64_t epoch) {
  const EndingLease* found = FindEnding(job, epoch);
  if (found == nullptr) return;
  for (const v1::LeaseSlice& s : found->lease.slices()) {
    if (!ending_on_.count(s.node())) continue;
    std::set<JobEpoch>& leases = ending_on_.Edit(s.node());
    leases.erase({job, epoch});
    if (leases.empty()) ending_on_.Erase(s.node());
  }
  std::map<int64_t, EndingLease>& of_job = ending_.Edit(job);
  of_job.erase(epoch);
  if (of_job.empty()) ending_.Erase(job);
}

const std::map<int64_t, EndingLease>& LeaseTable::EndingOf(const std::string& job) const {
  auto it = ending_.find(job);
  return it == ending_.end() ? kNoEnding : it->second;
}

const std::set<LeaseTable::JobEpoch>& LeaseTable::EndingOn(const std::string& node) const {
  auto it = ending_on_.find(node);
  return it == ending_on_.end() ? kNoLeases : it->second;
}

void LeaseTable::Open() {
  ending_.Open();
  current_on_.Open();
  ending_on_.Open();
  granted_.Open();
  launches_.Open();
  held_.Open();
  stops_.Open();
  next_epoch_at_open_ = next_epoch_;
}

void LeaseTable::Keep() {
  ending_.Keep();
  current_on_.Keep();
  ending_on_.Keep();
  granted_.Keep();
  launches_.Keep();
  held_.Keep();
  stops_.Keep();
}

void LeaseTable::Undo() {
  ending_.Undo();
  current_on_.Undo();
  ending_on_.Undo();
  granted_.Undo();
  launches_.Undo();
  held_.Undo();
  stops_.Undo();
  next_epoch_ = next_epoch_at_open_;
}

bool LeaseTable::AnyOf(const std::string& job) const {
  if (launches_.count(job) || ending_.count(job)) return true;
  for (const auto& [node, held] : held_.all()) {
    for (const auto& [lease, ids] : held) {
      if (lease.first == job) return true;
    }
  }
  for (const auto& [node, stops] : stops_.all()) {
    for (const v1::StopOrder& stop : stops) {
      if (stop.job_id() == job) return true;
    }
  }
  return false;
}

}  // namespace synergy::daemon
