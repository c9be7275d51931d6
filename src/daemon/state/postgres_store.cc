#include "daemon/state/postgres_store.h"

#include <endian.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"

namespace synergy::daemon {
namespace postgres_internal {

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

// One statement's parameters: text (ids, numbers) or bytes (records and
// free text, stored as BYTEA so that no byte a user wrote can fail a
// commit on the database's encoding).
class Params {
 public:
  Params& Text(std::string v) { return Add(std::move(v), 0); }
  Params& Int(int64_t v) { return Add(std::to_string(v), 0); }
  Params& Bytes(std::string v) { return Add(std::move(v), 1); }
  // Runs `sql` with these parameters; results in binary (ints as 8 bytes,
  // big-endian; text and bytes as they are).
  Result Exec(PGconn* conn, const char* sql) const {
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const std::string& v : values_) {
      values.push_back(v.c_str());
      lengths.push_back(static_cast<int>(v.size()));
    }
    return Result(PQexecParams(conn, sql, static_cast<int>(values_.size()), nullptr, values.data(), lengths.data(),
                               formats_.data(), 1));
  }

 private:
  Params& Add(std::string v, int format) {
    values_.push_back(std::move(v));
    formats_.push_back(format);
    return *this;
  }
  std::vector<std::string> values_;
  std::vector<int> formats_;
};

}  // namespace postgres_internal

namespace {

using postgres_internal::Params;
using postgres_internal::Result;

bool Ok(const Result& r) {
  const ExecStatusType s = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
  return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

std::string Bytes(const Result& r, int row, int col) {
  return std::string(PQgetvalue(r.get(), row, col), static_cast<size_t>(PQgetlength(r.get(), row, col)));
}

int64_t Int(const Result& r, int row, int col) {
  uint64_t v = 0;
  if (PQgetlength(r.get(), row, col) == 8) std::memcpy(&v, PQgetvalue(r.get(), row, col), 8);
  return static_cast<int64_t>(be64toh(v));
}

// The schema: SqliteStore's, with ids in the C collation (sorted as SQLite
// sorts them) and free text as bytes.
constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS meta(key TEXT COLLATE \"C\" PRIMARY KEY, value BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS jobs(id TEXT COLLATE \"C\" PRIMARY KEY, submitted BIGINT NOT NULL,"
    " state BIGINT NOT NULL, job BYTEA NOT NULL)",
    "CREATE TABLE IF NOT EXISTS events(seq BIGSERIAL PRIMARY KEY, job_id TEXT COLLATE \"C\" NOT NULL,"
    " unix_ms BIGINT NOT NULL, text BYTEA NOT NULL)",
    "CREATE INDEX IF NOT EXISTS events_by_job ON events(job_id, seq)",
    "CREATE TABLE IF NOT EXISTS nodes(name TEXT COLLATE \"C\" PRIMARY KEY, drained BIGINT NOT NULL,"
    " reason BYTEA NOT NULL, since BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS secrets(name TEXT COLLATE \"C\" PRIMARY KEY, value BYTEA NOT NULL)",
    "CREATE TABLE IF NOT EXISTS joined_nodes(name TEXT COLLATE \"C\" PRIMARY KEY, unix_ms BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS job_history(id TEXT COLLATE \"C\" PRIMARY KEY, submitted BIGINT NOT NULL,"
    " owner BYTEA NOT NULL, tenant BYTEA NOT NULL, state BIGINT NOT NULL, job BYTEA NOT NULL)",
    // The credential key: no role but the tables' owner reads it.
    "REVOKE ALL ON secrets FROM PUBLIC",
    // Who leads: one row, its epoch raised at each takeover.
    // holder_pid: the leader's server process, ended by a standby that
    // takes over from a leader paused inside a transaction (whose lock on
    // this row would otherwise hold the takeover until it woke).
    "CREATE TABLE IF NOT EXISTS leadership(id INT PRIMARY KEY CHECK (id = 1), epoch BIGINT NOT NULL,"
    " holder BYTEA NOT NULL, holder_pid INT NOT NULL, expires_at TIMESTAMPTZ NOT NULL)",
    "INSERT INTO leadership(id, epoch, holder, holder_pid, expires_at)"
    " SELECT 1, 0, ''::bytea, 0, '-infinity' WHERE NOT EXISTS (SELECT 1 FROM leadership WHERE id = 1)"
    " ON CONFLICT (id) DO NOTHING",
    // Leadership passed from one instance to another (a failover, or a
    // standby taking over after a clean stop): synergy_leader_takeovers_total.
    "ALTER TABLE leadership ADD COLUMN IF NOT EXISTS takeovers BIGINT NOT NULL DEFAULT 0",
};

// Whether the schema is all there: its newest part exists (a read of the
// catalog, which waits for no lock).
constexpr char kSchemaPresent[] =
    "SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('leadership') AND attname = 'takeovers'"
    " AND NOT attisdropped";

// Each write of a commit, in SqliteStore's order and with its rules.
constexpr char kWriteJob[] =
    "INSERT INTO jobs(id, submitted, state, job) SELECT $1::text, $2::bigint, $3::bigint, $4::bytea"
    " WHERE NOT EXISTS (SELECT 1 FROM job_history WHERE id = $1::text)"
    " ON CONFLICT(id) DO UPDATE SET state = EXCLUDED.state, job = EXCLUDED.job";
constexpr char kWriteEvent[] =
    "INSERT INTO events(job_id, unix_ms, text) SELECT $1::text, $2::bigint, $3::bytea"
    " WHERE NOT EXISTS (SELECT 1 FROM job_history WHERE id = $1::text)";
constexpr char kWriteCounter[] =
    "INSERT INTO meta(key, value) VALUES($1, $2) ON CONFLICT(key) DO UPDATE SET value = GREATEST(meta.value, "
    "EXCLUDED.value)";
constexpr char kWriteDrained[] =
    "INSERT INTO nodes(name, drained, reason, since) VALUES($1, $2, $3, $4) ON CONFLICT(name) DO UPDATE SET"
    " drained = EXCLUDED.drained, reason = EXCLUDED.reason, since = EXCLUDED.since";
constexpr char kWriteSecret[] = "INSERT INTO secrets(name, value) VALUES($1, $2)";
constexpr char kWriteJoined[] = "INSERT INTO joined_nodes(name, unix_ms) VALUES($1, $2)";
constexpr char kTrimEvents[] =
    "DELETE FROM events WHERE job_id = $1::text AND seq <= (SELECT seq FROM events WHERE job_id = $1::text"
    " ORDER BY seq DESC LIMIT 1 OFFSET $2::bigint)";
// The lease as it stands; expires_at as text, which a standby compares
// between its looks ('-infinity': released, or never held).
constexpr char kReadLeadership[] =
    "SELECT holder, epoch, expires_at::text, expires_at <= now(),"
    " CASE WHEN expires_at = '-infinity' THEN 0 ELSE (extract(epoch FROM expires_at - now()) * 1000)::bigint END,"
    " EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = holder_pid AND holder_pid <> 0)"
    " FROM leadership WHERE id = 1";
// Takes the lease of the epoch last read, unless it changed since.
constexpr char kTakeLeadership[] =
    "UPDATE leadership SET epoch = epoch + 1, holder = $1::bytea, holder_pid = pg_backend_pid(),"
    " expires_at = now() + $2::bigint * interval '1 millisecond',"
    " takeovers = takeovers + (holder <> $1::bytea AND holder <> ''::bytea)::int"
    " WHERE id = 1 AND epoch = $3::bigint AND expires_at::text = $4::text RETURNING epoch, takeovers";
// The server process of the leader whose lease is taken, which may be
// paused inside a transaction (its lock on the row would hold the takeover
// until it woke).
constexpr char kEndStaleLeader[] =
    "SELECT pg_terminate_backend(holder_pid) FROM leadership WHERE id = 1 AND holder_pid <> 0"
    " AND holder_pid <> pg_backend_pid() AND epoch = $1::bigint AND expires_at::text = $2::text";
// Extends the lease of the epoch that leads; no row where another took it.
constexpr char kRenew[] =
    "UPDATE leadership SET expires_at = now() + $2::bigint * interval '1 millisecond', holder_pid = pg_backend_pid()"
    " WHERE id = 1 AND epoch = $1::bigint RETURNING epoch";
constexpr char kRetire[] =
    "INSERT INTO job_history(id, submitted, owner, tenant, state, job) VALUES($1, $2, $3, $4, $5, $6)"
    " ON CONFLICT(id) DO NOTHING";

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresStore>> PostgresStore::Open(const std::string& dsn,
                                                                   const PostgresLeadership& leadership) {
  PGconn* conn = PQconnectdb(dsn.c_str());
  if (conn == nullptr) return absl::UnavailableError("PostgreSQL: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = PQerrorMessage(conn);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    PQfinish(conn);
    // libpq's message names the host and port, never the password.
    return absl::UnavailableError(absl::StrCat("PostgreSQL: cannot connect: ", msg));
  }
  std::unique_ptr<PostgresStore> store(new PostgresStore(
      conn, absl::StrCat("postgresql://", PQhost(conn), ":", PQport(conn), "/", PQdb(conn)), leadership));
  // The server's notices (a table that exists already) are not synergyd's
  // to print; its errors come back as statuses.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  if (absl::Status st = store->CreateSchema(); !st.ok()) return st;
  if (absl::Status st = store->TakeLeadership(); !st.ok()) return st;
  if (store->leadership_.renew) store->renewer_ = std::thread([raw = store.get()] { raw->RenewUntilClosed(); });
  return store;
}

absl::Status PostgresStore::CreateSchema() {
  // A standby opens a store at every look: where the schema is there it
  // changes nothing, since DDL on a table would wait for the locks of a
  // leader paused inside a commit (and hold up the leader's commits).
  Result present(PQexec(conn_, kSchemaPresent));
  if (Ok(present) && PQntuples(present.get()) == 1) return absl::OkStatus();
  // First start: one transaction, so that the schema is all there or not.
  Result begin(PQexec(conn_, "BEGIN"));
  Result timeout(PQexec(conn_, "SET LOCAL lock_timeout = '3s'"));
  for (const char* sql : kSchema) {
    Result r(PQexec(conn_, sql));
    if (!Ok(r)) {
      const std::string why = PQerrorMessage(conn_);
      Result rollback(PQexec(conn_, "ROLLBACK"));
      return absl::UnavailableError(absl::StrCat(name_, ": ", sql, ": ", why));
    }
  }
  Result commit(PQexec(conn_, "COMMIT"));
  if (!Ok(commit)) return absl::UnavailableError(absl::StrCat(name_, ": create the tables: ", PQerrorMessage(conn_)));
  return absl::OkStatus();
}

PostgresStore::PostgresStore(pg_conn* conn, std::string name, PostgresLeadership leadership)
    : conn_(conn), name_(std::move(name)), leadership_(std::move(leadership)) {
  leadership_.instance = LeadershipInstanceName(leadership_.instance);
}

std::optional<Store::Leadership> PostgresStore::leadership() const {
  return Leadership{leadership_.instance, epoch_, takeovers_};
}

std::string LeadershipInstanceName(const std::string& configured) {
  if (!configured.empty()) return configured;
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

absl::Status PostgresStore::TakeLeadership() {
  std::lock_guard<std::mutex> lock(mu_);
  // A takeover waits at most a few seconds for the row (then the caller
  // tries again), and never for a leader that stopped mid-transaction.
  Result timeout(PQexec(conn_, "SET lock_timeout = '3s'"));
  absl::Status taken = TakeLeadershipLocked();
  Result no_timeout(PQexec(conn_, "SET lock_timeout = 0"));
  return taken;
}

absl::Status PostgresStore::TakeLeadershipLocked() {
  Result row = Params().Exec(conn_, kReadLeadership);
  if (!Ok(row) || PQntuples(row.get()) != 1) {
    return absl::UnavailableError(absl::StrCat(name_, ": read the leadership: ", PQerrorMessage(conn_)));
  }
  // Results are binary: bigint big-endian, bool one byte, text as is.
  const std::string holder = Bytes(row, 0, 0);
  const int64_t epoch = Int(row, 0, 1);
  const std::string expires_at = Bytes(row, 0, 2);
  const bool ran_out = Bytes(row, 0, 3) == std::string(1, '\1');
  const bool holder_connected = Bytes(row, 0, 5) == std::string(1, '\1');
  if (absl::Status free = LeaseIsFree(holder, holder_connected, epoch, expires_at, ran_out); !free.ok()) {
    return absl::AlreadyExistsError(absl::StrCat(name_, ": synergyd '", holder, "' leads (epoch ", epoch,
                                                 ", its lease due to end in ", Int(row, 0, 4), " ms; ",
                                                 free.message(), "); one synergyd writes the state, and a "
                                                 "standby takes over when that lease runs out"));
  }
  Result end_stale = Params().Int(epoch).Bytes(expires_at).Exec(conn_, kEndStaleLeader);
  Result r = Params()
                 .Bytes(leadership_.instance)
                 .Int(StandbyWaitMs(leadership_.lease_ms))
                 .Int(epoch)
                 .Bytes(expires_at)
                 .Exec(conn_, kTakeLeadership);
  if (!Ok(r)) {
    const char* state = r ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (state != nullptr && std::string(state) == "55P03") {  // lock_not_available
      return absl::AlreadyExistsError(absl::StrCat(name_,
                                                   ": the leader holds the leadership row (in a commit); "
                                                   "a standby tries again"));
    }
    return absl::UnavailableError(absl::StrCat(name_, ": take the leadership: ", PQerrorMessage(conn_)));
  }
  if (PQntuples(r.get()) != 1) {
    return absl::AlreadyExistsError(absl::StrCat(name_, ": synergyd '", holder, "' renewed its lease (epoch ",
                                                 epoch, ") as this one tried to take it over"));
  }
  epoch_ = Int(r, 0, 0);
  takeovers_ = Int(r, 0, 1);
  return absl::OkStatus();
}

absl::Status PostgresStore::LeaseIsFree(const std::string& holder, bool holder_connected, int64_t epoch,
                                        const std::string& expires_at, bool ran_out) const {
  // Released at a clean stop (or never held): taken at once. This
  // instance's own lease, once its holder's session is gone (synergyd
  // killed and restarted): at once too; a live namesake is not taken from.
  if (expires_at == "-infinity") return absl::OkStatus();
  if (holder == leadership_.instance && !holder_connected) return absl::OkStatus();
  // The database's clock, which wrote the expiry, says it ran out; and,
  // for a standby, it has itself seen no renewal for as long (what it saw
  // is kept from its first look, before the expiry).
  LeaseSighting* seen = leadership_.sighting;
  if (seen == nullptr) return ran_out ? absl::OkStatus() : absl::FailedPreconditionError("its lease has not run out");
  const auto now = std::chrono::steady_clock::now();
  if (seen->epoch != epoch || seen->expires_at != expires_at) {
    *seen = LeaseSighting{epoch, expires_at, now};
    return absl::FailedPreconditionError("renewed since this standby last looked");
  }
  if (!ran_out) return absl::FailedPreconditionError("its lease has not run out");
  const int64_t unchanged_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - seen->since).count();
  if (const int64_t wait_ms = StandbyWaitMs(leadership_.lease_ms); unchanged_ms < wait_ms) {
    return absl::FailedPreconditionError(
        absl::StrCat("not renewed for ", unchanged_ms, " ms of the ", wait_ms, " this standby waits"));
  }
  return absl::OkStatus();
}

absl::Status PostgresStore::Renew() const {
  if (fenced_) return absl::AbortedError(absl::StrCat(name_, ": fenced: another synergyd leads now"));
  Result r = Params().Int(epoch_).Int(StandbyWaitMs(leadership_.lease_ms)).Exec(conn_, kRenew);
  if (!Ok(r)) return absl::UnavailableError(absl::StrCat(name_, ": renew the leadership: ", PQerrorMessage(conn_)));
  if (PQntuples(r.get()) == 1) return absl::OkStatus();
  fenced_ = true;
  return absl::AbortedError(absl::StrCat(name_, ": fenced: another synergyd took the state over after epoch ", epoch_,
                                         "; this one must not write"));
}

void PostgresStore::RenewUntilClosed() {
  std::unique_lock<std::mutex> lock(mu_);
  const auto every = std::chrono::milliseconds(std::max<int64_t>(1, leadership_.lease_ms / 3));
  while (!closing_cv_.wait_for(lock, every, [this] { return closing_; })) {
    if (Connected().ok()) Renew().IgnoreError();
  }
}

absl::Status PostgresStore::Connected() const {
  if (PQstatus(conn_) == CONNECTION_OK) return absl::OkStatus();
  PQreset(conn_);
  if (PQstatus(conn_) != CONNECTION_OK) {
    return absl::UnavailableError(absl::StrCat(name_, ": cannot reconnect: ", PQerrorMessage(conn_)));
  }
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  return absl::OkStatus();
}

PostgresStore::~PostgresStore() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  closing_cv_.notify_all();
  if (renewer_.joinable()) renewer_.join();
  // Released now, not when the lease runs out: a standby (or this
  // synergyd, restarted) takes over at once after a clean stop.
  if (!fenced_ && epoch_ > 0 && PQstatus(conn_) == CONNECTION_OK) {
    Result release = Params().Int(epoch_).Exec(
        conn_, "UPDATE leadership SET expires_at = '-infinity', holder_pid = 0 WHERE id = 1 AND epoch = $1::bigint");
  }
  PQfinish(conn_);
}

absl::Status PostgresStore::Commit(const Batch& batch) {
  if (batch.empty()) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status st = Connected(); !st.ok()) return st;
  if (fenced_) return Renew();
  Result begin(PQexec(conn_, "BEGIN"));
  if (!Ok(begin) && PQstatus(conn_) == CONNECTION_BAD) {
    // The session was ended (a server restart, or a standby that took
    // over): nothing of this batch was sent, so it starts again on a new one.
    if (absl::Status st = Connected(); !st.ok()) return st;
    begin.reset(PQexec(conn_, "BEGIN"));
  }
  if (!Ok(begin)) return absl::UnavailableError(absl::StrCat(name_, ": begin: ", PQerrorMessage(conn_)));
  // The epoch first: the leadership row stays locked to the commit, so a
  // takeover waits for it, and a store another took over from writes
  // nothing.
  absl::Status st = Renew();
  if (st.ok()) st = CommitLocked(batch);
  if (st.ok()) {
    Result commit(PQexec(conn_, "COMMIT"));
    if (Ok(commit)) return absl::OkStatus();
    st = absl::UnavailableError(absl::StrCat(name_, ": commit: ", PQerrorMessage(conn_)));
  }
  Result rollback(PQexec(conn_, "ROLLBACK"));
  return st;
}

absl::Status PostgresStore::CommitLocked(const Batch& batch) const {
  // The batch's writes, in SqliteStore's order, then run one by one: the
  // first that fails fails the batch (the caller rolls it back).
  struct Write {
    Params params;
    const char* sql;
    std::string what;
  };
  std::vector<Write> writes;
  for (const v1::Job& job : batch.jobs) {
    writes.push_back({Params().Text(job.id()).Int(job.submitted_unix_ms()).Int(job.state()).Bytes(StoredRecord(job)),
                      kWriteJob, "write job " + job.id()});
  }
  for (const auto& [job, e] : batch.events) {
    writes.push_back({Params().Text(job).Int(e.unix_ms()).Bytes(e.text()), kWriteEvent, "write an event of " + job});
  }
  for (const auto& [key, value] : batch.counters) {
    writes.push_back({Params().Text(key).Int(value), kWriteCounter, "write counter " + key});
  }
  for (const auto& [node, d] : batch.drained) {
    writes.push_back({Params().Text(node).Int(d.drained ? 1 : 0).Bytes(d.reason).Int(d.since_ms), kWriteDrained,
                      "write node " + node});
  }
  for (const auto& [name, value] : batch.secrets) {
    writes.push_back({Params().Text(name).Bytes(value), kWriteSecret, "write secret " + name});
  }
  for (const auto& [node, ms] : batch.joined_nodes) {
    writes.push_back({Params().Text(node).Int(ms), kWriteJoined, "write joined node " + node});
  }
  for (const std::string& job : batch.jobs_with_events()) {
    writes.push_back({Params().Text(job).Int(kMaxEventsPerJob), kTrimEvents, "trim the events of " + job});
  }
  for (const v1::Job& job : batch.retired) {
    writes.push_back({Params()
                          .Text(job.id())
                          .Int(job.submitted_unix_ms())
                          .Bytes(job.owner())
                          .Bytes(job.spec().tenant())
                          .Int(job.state())
                          .Bytes(StoredRecord(job)),
                      kRetire, "retire job " + job.id()});
    writes.push_back({Params().Text(job.id()), "DELETE FROM jobs WHERE id = $1", "remove retired job " + job.id()});
    writes.push_back({Params().Text(job.id()), "DELETE FROM events WHERE job_id = $1",
                      "remove the events of retired job " + job.id()});
  }
  for (const Write& w : writes) {
    Result r = w.params.Exec(conn_, w.sql);
    if (!Ok(r)) return absl::UnavailableError(absl::StrCat(name_, ": ", w.what, ": ", PQerrorMessage(conn_)));
  }
  return absl::OkStatus();
}

namespace {

// Jobs from rows of (id, record); DATA_LOSS names a record that does not parse.
absl::StatusOr<std::vector<v1::Job>> JobRows(const Result& r, const std::string& name, const char* record) {
  std::vector<v1::Job> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    v1::Job job;
    if (!job.ParseFromString(Bytes(r, i, 1))) {
      return absl::DataLossError(absl::StrCat(name, ": ", record, " ", Bytes(r, i, 0), " is not a valid record"));
    }
    out.push_back(std::move(job));
  }
  return out;
}

}  // namespace

absl::StatusOr<Result> PostgresStore::Read(const Params& params, const char* sql, const char* what) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (absl::Status st = Connected(); !st.ok()) return st;
  Result r = params.Exec(conn_, sql);
  if (!Ok(r) && PQstatus(conn_) == CONNECTION_BAD) {
    // A read on a session that was ended: once more, on a new one.
    if (absl::Status st = Connected(); !st.ok()) return st;
    r = params.Exec(conn_, sql);
  }
  if (!Ok(r)) return absl::UnavailableError(absl::StrCat(name_, ": ", what, ": ", PQerrorMessage(conn_)));
  return r;
}

absl::StatusOr<std::vector<v1::Job>> PostgresStore::LoadJobs() const {
  auto r = Read(Params(), "SELECT id, job FROM jobs ORDER BY submitted, id", "read jobs");
  if (!r.ok()) return r.status();
  return JobRows(*r, name_, "job");
}

absl::StatusOr<std::vector<v1::JobEvent>> PostgresStore::LoadEvents(const std::string& job_id, int limit) const {
  auto r = Read(Params().Text(job_id).Int(limit),
                "SELECT unix_ms, text FROM (SELECT seq, unix_ms, text FROM events WHERE job_id = $1::text"
                " ORDER BY seq DESC LIMIT $2::bigint) AS newest ORDER BY seq",
                "read events");
  if (!r.ok()) return r.status();
  std::vector<v1::JobEvent> out;
  for (int i = 0; i < PQntuples(r->get()); ++i) {
    v1::JobEvent e;
    e.set_unix_ms(Int(*r, i, 0));
    e.set_text(Bytes(*r, i, 1));
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// Rows of (text key, bigint value) as a map.
absl::StatusOr<std::map<std::string, int64_t>> KeyedInts(absl::StatusOr<Result> r) {
  if (!r.ok()) return r.status();
  std::map<std::string, int64_t> out;
  for (int i = 0; i < PQntuples(r->get()); ++i) out[Bytes(*r, i, 0)] = Int(*r, i, 1);
  return out;
}

}  // namespace

absl::StatusOr<std::map<std::string, int64_t>> PostgresStore::LoadCounters() const {
  return KeyedInts(Read(Params(), "SELECT key, value FROM meta", "read meta"));
}

absl::StatusOr<std::map<std::string, NodeDrain>> PostgresStore::LoadDrained() const {
  auto r = Read(Params(), "SELECT name, drained, reason, since FROM nodes", "read nodes");
  if (!r.ok()) return r.status();
  std::map<std::string, NodeDrain> out;
  for (int i = 0; i < PQntuples(r->get()); ++i)
    out[Bytes(*r, i, 0)] = NodeDrain{Int(*r, i, 1) != 0, Bytes(*r, i, 2), Int(*r, i, 3)};
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> PostgresStore::LoadSecrets() const {
  auto r = Read(Params(), "SELECT name, value FROM secrets", "read secrets");
  if (!r.ok()) return r.status();
  std::map<std::string, std::string> out;
  for (int i = 0; i < PQntuples(r->get()); ++i) out[Bytes(*r, i, 0)] = Bytes(*r, i, 1);
  return out;
}

absl::StatusOr<std::map<std::string, int64_t>> PostgresStore::LoadJoinedNodes() const {
  return KeyedInts(Read(Params(), "SELECT name, unix_ms FROM joined_nodes", "read joined_nodes"));
}

absl::StatusOr<std::vector<v1::Job>> PostgresStore::LoadHistory(const HistoryQuery& query) const {
  int64_t states = 0;  // a bit set (JobState values are below 64)
  for (int s : query.states) {
    if (s >= 0 && s < 63) states |= int64_t{1} << s;
  }
  auto r = Read(Params()
                    .Text(query.after_id)
                    .Int(query.since_ms)
                    .Bytes(query.owner)
                    .Bytes(query.tenant)
                    .Int(states)
                    .Int(query.limit),
                "SELECT id, job FROM job_history WHERE id > $1::text AND submitted >= $2::bigint"
                " AND (length($3::bytea) = 0 OR owner = $3::bytea)"
                " AND (length($4::bytea) = 0 OR tenant = $4::bytea)"
                " AND ($5::bigint = 0 OR (($5::bigint >> state::int) & 1) = 1) ORDER BY id LIMIT $6::bigint",
                "read the job history");
  if (!r.ok()) return r.status();
  return JobRows(*r, name_, "retired job");
}

absl::StatusOr<v1::Job> PostgresStore::LoadRetiredJob(const std::string& job_id) const {
  auto r = Read(Params().Text(job_id), "SELECT id, job FROM job_history WHERE id = $1::text", "read the job history");
  if (!r.ok()) return r.status();
  if (PQntuples(r->get()) == 0) return absl::NotFoundError(absl::StrCat("job ", job_id, " was not retired"));
  auto jobs = JobRows(*r, name_, "retired job");
  if (!jobs.ok()) return jobs.status();
  return (*jobs)[0];
}

}  // namespace synergy::daemon
