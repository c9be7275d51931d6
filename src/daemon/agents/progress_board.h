#pragma once
// Where agents report progress without the daemon's lock. 10,000 agents
// report once a second each; a round holds the daemon's lock for tens of
// milliseconds at that size, and every report behind it would wait. The
// board has a lock of its own, held for a map lookup.
//
// It holds two things:
//  - the leases open to progress: a copy of each job's current lease that
//    is not ending (its epoch, and the iterations the job asked for, which
//    cap its count). The daemon publishes a job's entry after every stored
//    change that touched the job, so the board never shows a lease the
//    store does not have; it may show one a change has just ended, which
//    is the same as a report that arrived just before that change.
//  - the reports taken under those leases, latest per job, until the daemon
//    folds them into the jobs' records (TakeReports, under its lock).
// A report for any other lease (an ending one, whose agent must learn
// where to stop; an unknown job or epoch) is not taken: the caller answers
// it under the daemon's lock, as before.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class ProgressBoard {
 public:
  struct OpenLease {
    int64_t epoch = 0;
    int64_t iterations = 0;  // the job's own count is capped here (0: no cap)
    // Resize in place: what the daemon knows of the agent (a report that
    // says more goes to the daemon), the lease's revision, and the reply
    // that tells rank 0 its allocation (empty until the node applied it).
    bool resizable = false;
    int64_t revision = 0;
    int64_t applied_revision = 0;
    v1::ProgressReply reply;
  };
  struct Report {
    int64_t epoch = 0;
    int64_t iterations_done = 0;  // capped, the highest reported
    double throughput = 0;        // the latest reported
  };

  // The job's lease open to progress now, or none (withdrawn).
  void Publish(const std::string& job_id, std::optional<OpenLease> lease) ABSL_LOCKS_EXCLUDED(mu_);
  // Takes `report` when it is for the job's open lease and brings no resize
  // news (the agent newly follows resizes, or applied a revision), and
  // fills `reply`: "go on" (the lease is not ending), with the allocation
  // published for rank 0; false otherwise.
  bool Take(const v1::ProgressReport& report, v1::ProgressReply& reply) ABSL_LOCKS_EXCLUDED(mu_);
  // The reports taken since the last call, by job.
  std::map<std::string, Report> TakeReports() ABSL_LOCKS_EXCLUDED(mu_);
  // Copies of jobs' records as they will be once folded, so that a read
  // right after a report sees it.
  void Overlay(std::vector<v1::Job>& jobs) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  mutable absl::Mutex mu_;
  std::map<std::string, OpenLease> open_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Report> reports_ ABSL_GUARDED_BY(mu_);
};

}  // namespace synergy::daemon
