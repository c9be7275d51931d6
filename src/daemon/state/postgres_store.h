#pragma once
// The Store on PostgreSQL (libpq): synergyd's state in a database server
// that other hosts can reach and that operators replicate (streaming
// replication, pg_auto_failover, Patroni), so that losing synergyd's host
// loses no state. The schema and every write's rule are SqliteStore's
// (sqlite_store.h); a commit is one transaction, durable when COMMIT
// returns (synchronous_commit as the server has it: on by default).
//
// One daemon writes the state: the leader. Leadership is a lease in the
// database (table `leadership`: an epoch, its holder, when it expires),
// renewed every third of PostgresLeadership::lease_ms by a thread of the
// store and by every commit. Open takes it when it has expired (for a
// standby: and it saw it unrenewed, LeaseSighting), or was released at a
// clean close, or at once when its holder is this instance and that
// holder's session is gone (synergyd restarted after kill -9), raising the
// epoch; else it is refused with ALREADY_EXISTS naming the holder. Each
// synergyd sharing a database needs an instance name of its own. Every commit checks the epoch in
// its own transaction (the row's lock orders it against a takeover): a
// leader that was paused past its lease, and whose place another took,
// cannot write (ABORTED, fenced) however late it wakes. Ids sort as SQLite
// sorts them (the C collation).
//
// The credential key is in the table `secrets`: Open revokes it from
// PUBLIC; docs/deploy.md says which role should own the tables.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "daemon/state/store.h"

struct pg_conn;
struct pg_result;

namespace synergy::daemon {
namespace postgres_internal {
class Params;
struct ResultDeleter;
}  // namespace postgres_internal

// What a standby saw of the leader's lease across its tries (client-go's
// leader election keeps the same "observed record"): it takes the lease
// only once it has seen it unrenewed for a whole lease_ms of its own clock,
// whatever the clocks of the database and the leader say. A try that could
// not read the lease (the database was down) forgets the sighting: a leader
// that renews as soon as the database is back keeps leading.
struct LeaseSighting {
  int64_t epoch = -1;
  std::string expires_at;  // as the database wrote it, compared as text
  std::chrono::steady_clock::time_point since;
};

// How often a standby looks at the lease (synergyd's standby loop), and
// the lease a leader writes: PostgresLeadership::lease_ms less one look, so
// that a standby leads within lease_ms of the leader's last renewal (never
// less than half of lease_ms: the leader renews every third). A standby
// takes the lease once the database's clock says it ran out and it has
// itself seen it unrenewed for as long.
inline constexpr int64_t kStandbyLookMs = 1000;
inline int64_t StandbyWaitMs(int64_t lease_ms) { return std::max(lease_ms / 2, lease_ms - kStandbyLookMs); }

// Who leads, and for how long without renewing.
struct PostgresLeadership {
  std::string instance;      // the holder's name; "" the host's name
  int64_t lease_ms = 10000;  // a standby takes over about this long after the last renewal it saw
  bool renew = true;         // the store's thread renews (tests turn it off to play a paused leader)
  // A standby's sighting, kept by its caller across tries; nullptr: the
  // lease is taken once the database's clock says it ran out.
  LeaseSighting* sighting = nullptr;
};

// The instance name a leader is known by: `configured`, or the host's name.
std::string LeadershipInstanceName(const std::string& configured);

class PostgresStore : public Store {
 public:
  // Connects with `dsn` (libpq's "host=... dbname=... user=..." or a
  // postgresql:// URI), creates the tables where missing and takes the
  // leadership. Errors name the database (never its password): UNAVAILABLE
  // when it cannot be reached, ALREADY_EXISTS while another synergyd leads.
  static absl::StatusOr<std::unique_ptr<PostgresStore>> Open(const std::string& dsn,
                                                             const PostgresLeadership& leadership = {});
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

  bool fenced() const override { return fenced_; }
  std::optional<Leadership> leadership() const override;
  // The epoch this store leads at.
  int64_t epoch() const { return epoch_; }

 private:
  PostgresStore(pg_conn* conn, std::string name, PostgresLeadership leadership);
  absl::Status CommitLocked(const Batch& batch) const;
  // The tables, where they are not all there yet (first start).
  absl::Status CreateSchema();
  absl::Status TakeLeadership();
  absl::Status TakeLeadershipLocked();
  // OK where this store may take the lease as read; else why not (and the
  // sighting updated).
  absl::Status LeaseIsFree(const std::string& holder, bool holder_connected, int64_t epoch,
                           const std::string& expires_at, bool ran_out) const;
  // Extends the lease if this store still leads (its epoch); ABORTED, and
  // fenced from then on, where another took over. Called under mu_, in a
  // commit's transaction or on its own.
  absl::Status Renew() const;
  void RenewUntilClosed();
  // The connection, reset where the server dropped it (a restart, a
  // network cut): UNAVAILABLE while the server cannot be reached (the
  // epoch checked by every write fences a store another took over from
  // meanwhile). Called under mu_.
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
  PostgresLeadership leadership_;
  int64_t epoch_ = 0;
  int64_t takeovers_ = 0;  // as of this store's takeover
  mutable std::atomic<bool> fenced_{false};
  std::thread renewer_;
  std::condition_variable closing_cv_;
  bool closing_ = false;  // under mu_
};

}  // namespace synergy::daemon
