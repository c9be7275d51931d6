#pragma once
// A Store that refuses commits on command, over a real one: the disk-full
// or read-only episode of the tests, without needing a small filesystem.
// A refused commit writes nothing (the real store never sees it), as a
// failed SQLite transaction rolls back.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "daemon/state/store.h"

namespace synergy::daemon {

class FaultyStore : public Store {
 public:
  // What the test turns on and off after the store is handed to the daemon.
  struct Faults {
    bool refuse_commits = false;
    int refused = 0;    // commits refused so far
    int committed = 0;  // commits let through so far (empty batches too)
    int slow_ms = 0;    // each commit takes this long (a slow disk), so that groups form
    // Called as each commit begins, before any fault: a test holds a commit
    // in flight there while it queues others behind it.
    std::function<void()> before_commit;
  };

  FaultyStore(std::unique_ptr<Store> real, std::shared_ptr<Faults> faults)
      : real_(std::move(real)), faults_(std::move(faults)) {}

  absl::Status Commit(const Batch& batch) override {
    if (faults_->before_commit) faults_->before_commit();
    // An empty batch writes nothing, so a full disk does not refuse it.
    if (faults_->refuse_commits && !batch.empty()) {
      ++faults_->refused;
      return absl::UnavailableError(path() + ": database or disk is full (injected)");
    }
    ++faults_->committed;
    if (faults_->slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(faults_->slow_ms));
    return real_->Commit(batch);
  }
  absl::StatusOr<std::vector<v1::Job>> LoadJobs() const override { return real_->LoadJobs(); }
  absl::StatusOr<std::vector<v1::JobEvent>> LoadEvents(const std::string& job_id, int limit) const override {
    return real_->LoadEvents(job_id, limit);
  }
  absl::StatusOr<std::map<std::string, int64_t>> LoadCounters() const override { return real_->LoadCounters(); }
  absl::StatusOr<std::map<std::string, NodeDrain>> LoadDrained() const override { return real_->LoadDrained(); }
  absl::StatusOr<std::map<std::string, std::string>> LoadSecrets() const override { return real_->LoadSecrets(); }
  absl::StatusOr<std::map<std::string, int64_t>> LoadJoinedNodes() const override {
    return real_->LoadJoinedNodes();
  }
  absl::StatusOr<std::vector<v1::Job>> LoadHistory(const HistoryQuery& query) const override {
    return real_->LoadHistory(query);
  }
  absl::StatusOr<v1::Job> LoadRetiredJob(const std::string& job_id) const override {
    return real_->LoadRetiredJob(job_id);
  }
  const std::string& path() const override { return real_->path(); }

 private:
  std::unique_ptr<Store> real_;
  std::shared_ptr<Faults> faults_;
};

}  // namespace synergy::daemon
