#pragma once
// The Store synergyd runs on: one SQLite file in WAL mode with synchronous
// FULL, so that a committed batch survives kill -9 and power loss. Jobs are
// stored whole (the v1::Job message) next to the columns queries need; the
// events of a job are appended, never rewritten.
//
// One daemon per database: Open takes an exclusive lock on `<path>.lock`
// (flock, released by the kernel when the process ends, kill -9 included)
// and refuses a database another process holds, naming its pid.
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/state/store.h"

struct sqlite3;

namespace synergy::daemon::sqlite_internal {
class Statement;
}

namespace synergy::daemon {

class SqliteStore : public Store {
 public:
  // Opens (creating if needed) the database at `path`; errors name it.
  // ALREADY_EXISTS when another process holds the database. The file is
  // made readable by its owner only: it holds the key that lease and node
  // credentials derive from.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  absl::Status Commit(const Batch& batch) override;
  absl::StatusOr<std::vector<v1::Job>> LoadJobs() const override;
  absl::StatusOr<std::vector<v1::JobEvent>> LoadEvents(const std::string& job_id, int limit = 1000) const override;
  absl::StatusOr<std::map<std::string, int64_t>> LoadCounters() const override;
  absl::StatusOr<std::map<std::string, NodeDrain>> LoadDrained() const override;
  absl::StatusOr<std::map<std::string, std::string>> LoadSecrets() const override;
  absl::StatusOr<std::map<std::string, int64_t>> LoadJoinedNodes() const override;
  absl::StatusOr<std::vector<v1::Job>> LoadHistory(const HistoryQuery& query) const override;
  absl::StatusOr<v1::Job> LoadRetiredJob(const std::string& job_id) const override;
  const std::string& path() const override { return path_; }

 private:
  SqliteStore(sqlite3* db, std::string path, int lock_fd);
  absl::Status Exec(const char* sql) const;
  absl::Status Error(const std::string& what) const;
  // The rows of `q` (a text id in column 0, a serialized Job in column 1);
  // DATA_LOSS names a `record` that does not parse, `what` names a failed read.
  absl::StatusOr<std::vector<v1::Job>> ReadJobRows(sqlite_internal::Statement& q, const char* record,
                                                   const char* what) const;

  struct Writes;  // the statements Commit writes with, prepared once (sqlite_store.cc)

  sqlite3* db_;
  std::string path_;
  int lock_fd_;  // -1 for ":memory:"
  std::unique_ptr<Writes> writes_;
};

}  // namespace synergy::daemon
