#pragma once
// synergyd's durable state: one SQLite file in WAL mode with synchronous
// FULL, so that a committed batch survives kill -9 and power loss. Jobs are
// stored whole (the v1::Job message) next to the columns queries need; the
// events of a job are appended, never rewritten. A Batch is one
// transaction: a submitted job and its id counter land together or not at
// all, and the daemon acknowledges only after Commit returns OK.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/v1/synergy.pb.h"

struct sqlite3;

namespace synergy::daemon {

struct Batch {
  std::vector<v1::Job> jobs;                           // upserted (events field not stored)
  std::vector<std::pair<std::string, v1::JobEvent>> events;  // (job id, event) appended
  std::map<std::string, int64_t> counters;             // set
  std::map<std::string, bool> drained;                 // node -> drained
  std::map<std::string, std::string> secrets;          // name -> value, written once (never replaced)
  std::map<std::string, int64_t> joined_nodes;         // node -> when it joined with a join credential
  bool empty() const {
    return jobs.empty() && events.empty() && counters.empty() && drained.empty() && secrets.empty() &&
           joined_nodes.empty();
  }
};

class Store {
 public:
  // Opens (creating if needed) the database at `path`; errors name it. The
  // file is made readable by its owner only: it holds the key that lease
  // and node credentials derive from.
  static absl::StatusOr<std::unique_ptr<Store>> Open(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  absl::Status Commit(const Batch& batch);

  absl::StatusOr<std::vector<v1::Job>> LoadJobs() const;          // by submission order
  // The job's last `limit` events, oldest first.
  absl::StatusOr<std::vector<v1::JobEvent>> LoadEvents(const std::string& job_id, int limit = 1000) const;
  absl::StatusOr<std::map<std::string, int64_t>> LoadCounters() const;
  absl::StatusOr<std::map<std::string, bool>> LoadDrained() const;
  absl::StatusOr<std::map<std::string, std::string>> LoadSecrets() const;
  absl::StatusOr<std::map<std::string, int64_t>> LoadJoinedNodes() const;

  const std::string& path() const { return path_; }

 private:
  Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  absl::Status Exec(const char* sql) const;
  absl::Status Error(const std::string& what) const;

  sqlite3* db_;
  std::string path_;
};

}  // namespace synergy::daemon
