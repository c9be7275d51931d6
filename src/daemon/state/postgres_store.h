#pragma once
// The Store on PostgreSQL (libpq): synergyd's state in a database server
// that other hosts can reach and that operators replicate (streaming
// replication, pg_auto_failover, Patroni), so that losing synergyd's host
// loses no state. The schema and every write's rule are SqliteStore's
// (sqlite_store.h); a commit is one transaction, durable when COMMIT
// returns (synchronous_commit as the server has it: on by default).
//
// One daemon per database: Open takes a session-level advisory lock
// (kStoreLockKey), which the server releases when the session ends, kill -9
// of synergyd included; a second synergyd on the same database is refused
// with ALREADY_EXISTS. Ids sort as SQLite sorts them (the C collation).
//
// The credential key is in the table `secrets`: Open revokes it from
// PUBLIC; docs/deploy.md says which role should own the tables.
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/state/store.h"

struct pg_conn;
struct pg_result;

namespace synergy::daemon {
namespace postgres_internal {
class Params;
struct ResultDeleter;
}  // namespace postgres_internal

class PostgresStore : public Store {
 public:
  // The advisory lock one synergyd holds on its database.
  static constexpr int64_t kStoreLockKey = 0x53594e4552475944;  // "SYNERGYD"

  // Connects with `dsn` (libpq's "host=... dbname=... user=..." or a
  // postgresql:// URI) and creates the tables where missing. Errors name
  // the database (never its password): UNAVAILABLE when it cannot be
  // reached, ALREADY_EXISTS when another synergyd holds it.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(const std::string& dsn);
  ~PostgresStore() override;
  PostgresStore(const PostgresStore&) = delete;
  PostgresStore& operator=(const PostgresStore&) = delete;

  absl::Status Commit(const Batch& batch) override;
  absl::StatusOr<std::vector<v1::Job>> LoadJobs() const override;
  absl::StatusOr<std::vector<v1::JobEvent>> LoadEvents(const std::string& job_id, int limit = 1000) const override;
  absl::StatusOr<std::map<std::string, int64_t>> LoadCounters() const override;
  absl::StatusOr<std::map<std::string, NodeDrain>> LoadDrained() const override;
  absl::StatusOr<std::map<std::string, std::string>> LoadSecrets() const override;
  absl::StatusOr<std::map<std::string, int64_t>> LoadJoinedNodes() const override;
  absl::StatusOr<std::vector<v1::Job>> LoadHistory(const HistoryQuery& query) const override;
  absl::StatusOr<v1::Job> LoadRetiredJob(const std::string& job_id) const override;
  // "postgresql://HOST:PORT/DBNAME" (no user, no password).
  const std::string& path() const override { return name_; }

 private:
  PostgresStore(pg_conn* conn, std::string name);
  absl::Status CommitLocked(const Batch& batch) const;
  // The connection, reset where the server dropped it (a restart, a
  // network cut), and the store's lock taken again on the new session:
  // UNAVAILABLE while the server cannot be reached, or when another
  // synergyd took the lock meanwhile. Called under mu_.
  absl::Status Connected() const;
  // `sql` with `params` on the connection (Connected first), under mu_;
  // UNAVAILABLE naming `what` when it fails.
  absl::StatusOr<std::unique_ptr<pg_result, postgres_internal::ResultDeleter>> Read(
      const postgres_internal::Params& params, const char* sql, const char* what) const;

  // One connection, one statement at a time: libpq's connection is not
  // shared between threads, and the group commit's leader and readers
  // (events, history) would otherwise interleave on it.
  mutable std::mutex mu_;
  pg_conn* conn_;
  std::string name_;
  mutable bool holds_lock_ = false;  // released at destruction only when held
};

}  // namespace synergy::daemon
