#include "daemon/lease_table.h"

namespace synergy::daemon {
namespace {

const std::set<std::string> kNoJobs;
const std::set<LeaseTable::JobEpoch> kNoLeases;
const std::map<int64_t, EndingLease> kNoEnding;

}  // namespace

void LeaseTable::IndexCurrent(const v1::Lease& lease) {
  for (const v1::LeaseSlice& s : lease.slices()) current_on_.EditOrAdd(s.node()).insert(lease.job_id());
}

void LeaseTable::ForgetCurrent(const v1::Lease& lease) {
  for (const v1::LeaseSlice& s : lease.slices()) {
    if (!current_on_.count(s.node())) continue;
    std::set<std::string>& jobs = current_on_.Edit(s.node());
    jobs.erase(lease.job_id());
    if (jobs.empty()) current_on_.Erase(s.node());
  }
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
  next_epoch_at_open_ = next_epoch_;
}

void LeaseTable::Keep() {
  ending_.Keep();
  current_on_.Keep();
  ending_on_.Keep();
}

void LeaseTable::Undo() {
  ending_.Undo();
  current_on_.Undo();
  ending_on_.Undo();
  next_epoch_ = next_epoch_at_open_;
}

}  // namespace synergy::daemon
