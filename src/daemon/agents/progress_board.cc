#include "daemon/agents/progress_board.h"

#include <algorithm>

namespace synergy::daemon {

void ProgressBoard::Publish(const std::string& job_id, std::optional<OpenLease> lease) {
  absl::MutexLock lock(&mu_);
  if (lease) {
    open_[job_id] = *lease;
  } else {
    open_.erase(job_id);
  }
}

bool ProgressBoard::Take(const v1::ProgressReport& report, v1::ProgressReply& reply) {
  absl::MutexLock lock(&mu_);
  auto open = open_.find(report.job_id());
  if (open == open_.end() || open->second.epoch != report.epoch()) return false;
  const OpenLease& lease = open->second;
  if ((report.can_resize() && !lease.resizable) ||
      std::min(report.applied_revision(), lease.revision) > lease.applied_revision) {
    return false;
  }
  if (report.rank() == 0) {
    reply = lease.reply;
  } else {
    reply.Clear();
  }
  int64_t done = report.iterations_done();
  // A job's own count never runs past what it asked for.
  if (open->second.iterations > 0) done = std::min(done, open->second.iterations);
  Report& r = reports_[report.job_id()];
  r.epoch = report.epoch();
  r.iterations_done = std::max(r.iterations_done, done);
  r.throughput = report.throughput();
  return true;
}

std::map<std::string, ProgressBoard::Report> ProgressBoard::TakeReports() {
  std::map<std::string, Report> taken;
  absl::MutexLock lock(&mu_);
  taken.swap(reports_);
  return taken;
}

void ProgressBoard::Overlay(std::vector<v1::Job>& jobs) const {
  absl::MutexLock lock(&mu_);
  if (reports_.empty()) return;
  for (v1::Job& job : jobs) {
    auto r = reports_.find(job.id());
    if (r == reports_.end()) continue;
    job.set_iterations_done(std::max(job.iterations_done(), r->second.iterations_done));
    job.set_throughput(r->second.throughput);
  }
}

}  // namespace synergy::daemon
