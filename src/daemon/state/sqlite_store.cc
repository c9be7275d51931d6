#include "daemon/state/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"

namespace synergy::daemon {
namespace sqlite_internal {

// A prepared statement, finalised on scope exit. `persistent`: kept for
// many uses (SQLite's hint to allocate it for the long run).
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, bool persistent = false) {
    rc_ = sqlite3_prepare_v3(db, sql, -1, persistent ? SQLITE_PREPARE_PERSISTENT : 0, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void Text(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  void Blob(int i, const std::string& s) { sqlite3_bind_blob(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT); }
  void Int(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  int Step() { return sqlite3_step(stmt_); }
  void Reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string ColumnBytes(int i) {
    const void* p = sqlite3_column_blob(stmt_, i);
    return std::string(static_cast<const char*>(p), sqlite3_column_bytes(stmt_, i));
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

}  // namespace sqlite_internal

using sqlite_internal::Statement;

// The statements every commit writes with, prepared once (Commit runs one
// at a time: the group commit's leader).
struct SqliteStore::Writes {
  explicit Writes(sqlite3* db)
      // A retired job stays retired: a progress flush that read it before
      // its retirement and commits after must not bring it back.
      : job(db,
            "INSERT INTO jobs(id, submitted, state, job) SELECT ?1, ?2, ?3, ?4"
            " WHERE NOT EXISTS (SELECT 1 FROM job_history WHERE id = ?1)"
            " ON CONFLICT(id) DO UPDATE SET state = ?3, job = ?4",
            true),
        event(db,
              "INSERT INTO events(job_id, unix_ms, text) SELECT ?1, ?2, ?3"
              " WHERE NOT EXISTS (SELECT 1 FROM job_history WHERE id = ?1)",
              true),
        counter(db, "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = MAX(value, ?2)", true),
        drained(db, "INSERT INTO nodes(name, drained, reason, since) VALUES(?1, ?2, ?3, ?4)"
                    " ON CONFLICT(name) DO UPDATE SET drained = ?2, reason = ?3, since = ?4",
                true),
        // A secret is written once: a second writer (there is none) could
        // not replace the key credentials were derived from.
        secret(db, "INSERT INTO secrets(name, value) VALUES(?1, ?2)", true),
        joined(db, "INSERT INTO joined_nodes(name, unix_ms) VALUES(?1, ?2)", true),
        // A job's events beyond its newest ?2 (events_by_job finds them).
        trim(db,
             "DELETE FROM events WHERE job_id = ?1 AND seq <= (SELECT seq FROM events WHERE job_id = ?1"
             " ORDER BY seq DESC LIMIT 1 OFFSET ?2)",
             true),
        retire(db,
               "INSERT INTO job_history(id, submitted, owner, tenant, state, job) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
               " ON CONFLICT(id) DO NOTHING",
               true),
        unjob(db, "DELETE FROM jobs WHERE id = ?1", true),
        unevent(db, "DELETE FROM events WHERE job_id = ?1", true) {}
  bool ok() const {
    return job.ok() && event.ok() && counter.ok() && drained.ok() && secret.ok() && joined.ok() && trim.ok() &&
           retire.ok() && unjob.ok() && unevent.ok();
  }
  Statement job, event, counter, drained, secret, joined, trim, retire, unjob, unevent;
};

namespace {

// The rows of `sql`, a text key in column 0 and a value `column` reads;
// false when the query cannot be prepared or stepped to its end.
template <typename V, typename Column>
bool ReadKeyed(sqlite3* db, const char* sql, Column column, std::map<std::string, V>& out) {
  Statement q(db, sql);
  if (!q.ok()) return false;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    out[reinterpret_cast<const char*>(sqlite3_column_text(q.get(), 0))] = column(q.get());
  }
  return rc == SQLITE_DONE;
}

// An exclusive lock on `<path>.lock`, holding this process's pid; -1 for
// an in-memory database. A second daemon on the same state would grant the
// same epochs and launch the same jobs twice.
absl::StatusOr<int> LockDatabase(const std::string& path) {
  if (path == ":memory:") return -1;
  const std::string lock_path = path + ".lock";
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::UnavailableError(absl::StrCat(lock_path, ": cannot open the state lock: ", std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char holder[32] = {0};
    const ssize_t n = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      std::string pid(holder, n > 0 ? static_cast<size_t>(n) : 0);
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      return absl::AlreadyExistsError(absl::StrCat(path, ": the state database is in use by another synergyd",
                                                   pid.empty() ? "" : absl::StrCat(" (pid ", pid, ")"),
                                                   "; one daemon per state (lock ", lock_path, ")"));
    }
    return absl::UnavailableError(absl::StrCat(lock_path, ": cannot lock: ", std::strerror(err)));
  }
  const std::string pid = absl::StrCat(::getpid(), "\n");
  // Without the pid the lock holds all the same; only the message loses it.
  if (::ftruncate(fd, 0) == 0) [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
  return fd;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path) {
  auto lock = LockDatabase(path);
  if (!lock.ok()) return lock.status();
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    if (*lock >= 0) ::close(*lock);
    return absl::UnavailableError(absl::StrCat(path, ": cannot open the state database: ", msg));
  }
  std::unique_ptr<SqliteStore> store(new SqliteStore(db, path, *lock));
  sqlite3_busy_timeout(db, 5000);
  for (const char* sql : {
           "PRAGMA journal_mode=WAL",
           "PRAGMA synchronous=FULL",
           "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
           "CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, submitted INTEGER NOT NULL,"
           " state INTEGER NOT NULL, job BLOB NOT NULL)",
           "CREATE TABLE IF NOT EXISTS events(seq INTEGER PRIMARY KEY AUTOINCREMENT,"
           " job_id TEXT NOT NULL, unix_ms INTEGER NOT NULL, text TEXT NOT NULL)",
           "CREATE INDEX IF NOT EXISTS events_by_job ON events(job_id, seq)",
           "CREATE TABLE IF NOT EXISTS nodes(name TEXT PRIMARY KEY, drained INTEGER NOT NULL,"
           " reason TEXT NOT NULL DEFAULT '', since INTEGER NOT NULL DEFAULT 0)",
           "CREATE TABLE IF NOT EXISTS secrets(name TEXT PRIMARY KEY, value TEXT NOT NULL)",
           "CREATE TABLE IF NOT EXISTS joined_nodes(name TEXT PRIMARY KEY, unix_ms INTEGER NOT NULL)",
           // Ended jobs past retain_ended_jobs, as their last record
           // (without events), for accounting.
           "CREATE TABLE IF NOT EXISTS job_history(id TEXT PRIMARY KEY, submitted INTEGER NOT NULL,"
           " owner TEXT NOT NULL, tenant TEXT NOT NULL, state INTEGER NOT NULL, job BLOB NOT NULL)",
       }) {
    if (auto st = store->Exec(sql); !st.ok()) return st;
  }
  // A database from before drain reasons: its nodes table gains them, each
  // column on its own (a start cut short between the two finishes the job).
  for (const auto& [probe, add] :
       {std::pair<const char*, const char*>{"SELECT reason FROM nodes LIMIT 0",
                                            "ALTER TABLE nodes ADD COLUMN reason TEXT NOT NULL DEFAULT ''"},
        {"SELECT since FROM nodes LIMIT 0", "ALTER TABLE nodes ADD COLUMN since INTEGER NOT NULL DEFAULT 0"}}) {
    if (Statement(db, probe).ok()) continue;
    if (auto st = store->Exec(add); !st.ok()) return st;
  }
  if (path != ":memory:") {
    if (::chmod(path.c_str(), 0600) != 0) {
      return absl::UnavailableError(absl::StrCat(path, ": cannot make the state database private (chmod 0600)"));
    }
    // The WAL holds every recent write (the key included) until a
    // checkpoint: it is as private as the database.
    for (const char* suffix : {"-wal", "-shm"}) {
      const std::string side = path + suffix;
      if (::chmod(side.c_str(), 0600) != 0 && errno != ENOENT) {
        return absl::UnavailableError(absl::StrCat(side, ": cannot make it private (chmod 0600)"));
      }
    }
  }
  return store;
}

SqliteStore::SqliteStore(sqlite3* db, std::string path, int lock_fd)
    : db_(db), path_(std::move(path)), lock_fd_(lock_fd) {}

SqliteStore::~SqliteStore() {
  writes_.reset();  // its statements go before the database
  sqlite3_close(db_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

absl::Status SqliteStore::Error(const std::string& what) const {
  return absl::UnavailableError(absl::StrCat(path_, ": ", what, ": ", sqlite3_errmsg(db_)));
}

absl::Status SqliteStore::Exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    return absl::UnavailableError(absl::StrCat(path_, ": ", sql, ": ", msg));
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::Commit(const Batch& batch) {
  if (batch.empty()) return absl::OkStatus();
  if (writes_ == nullptr) {
    auto writes = std::make_unique<Writes>(db_);
    if (!writes->ok()) return Error("prepare the state's writes");
    writes_ = std::move(writes);
  }
  if (auto st = Exec("BEGIN IMMEDIATE"); !st.ok()) return st;
  // Each row of `rows` bound by `bind` and stepped; the first that fails
  // rolls the whole batch back, named by `what`.
  absl::Status failed;
  auto write = [&](Statement& stmt, const auto& rows, auto bind, auto what) {
    for (const auto& row : rows) {
      bind(stmt, row);
      const bool done = stmt.Step() == SQLITE_DONE;
      if (!done) failed = Error(what(row));
      stmt.Reset();
      if (!done) return false;
    }
    return true;
  };
  Writes& w = *writes_;
  const bool written =
      write(w.job, batch.jobs,
            [](Statement& st, const v1::Job& job) {
              st.Text(1, job.id());
              st.Int(2, job.submitted_unix_ms());
              st.Int(3, job.state());
              st.Blob(4, StoredRecord(job));
            },
            [](const v1::Job& job) { return "write job " + job.id(); }) &&
      write(w.event, batch.events,
            [](Statement& st, const std::pair<std::string, v1::JobEvent>& e) {
              st.Text(1, e.first);
              st.Int(2, e.second.unix_ms());
              st.Text(3, e.second.text());
            },
            [](const std::pair<std::string, v1::JobEvent>& e) { return "write an event of " + e.first; }) &&
      write(w.counter, batch.counters,
            [](Statement& st, const std::pair<const std::string, int64_t>& c) {
              st.Text(1, c.first);
              st.Int(2, c.second);
            },
            [](const std::pair<const std::string, int64_t>& c) { return "write counter " + c.first; }) &&
      write(w.drained, batch.drained,
            [](Statement& st, const std::pair<const std::string, NodeDrain>& d) {
              st.Text(1, d.first);
              st.Int(2, d.second.drained ? 1 : 0);
              st.Text(3, d.second.reason);
              st.Int(4, d.second.since_ms);
            },
            [](const std::pair<const std::string, NodeDrain>& d) { return "write node " + d.first; }) &&
      write(w.secret, batch.secrets,
            [](Statement& st, const std::pair<const std::string, std::string>& k) {
              st.Text(1, k.first);
              st.Text(2, k.second);
            },
            [](const std::pair<const std::string, std::string>& k) { return "write secret " + k.first; }) &&
      write(w.joined, batch.joined_nodes,
            [](Statement& st, const std::pair<const std::string, int64_t>& j) {
              st.Text(1, j.first);
              st.Int(2, j.second);
            },
            [](const std::pair<const std::string, int64_t>& j) { return "write joined node " + j.first; }) &&
      write(w.trim, batch.jobs_with_events(),
            [](Statement& st, const std::string& job) {
              st.Text(1, job);
              st.Int(2, kMaxEventsPerJob);
            },
            [](const std::string& job) { return "trim the events of " + job; }) &&
      write(w.retire, batch.retired,
            [](Statement& st, const v1::Job& job) {
              st.Text(1, job.id());
              st.Int(2, job.submitted_unix_ms());
              st.Text(3, job.owner());
              st.Text(4, job.spec().tenant());
              st.Int(5, job.state());
              st.Blob(6, StoredRecord(job));
            },
            [](const v1::Job& job) { return "retire job " + job.id(); }) &&
      write(w.unjob, batch.retired, [](Statement& st, const v1::Job& job) { st.Text(1, job.id()); },
            [](const v1::Job& job) { return "remove retired job " + job.id(); }) &&
      write(w.unevent, batch.retired, [](Statement& st, const v1::Job& job) { st.Text(1, job.id()); },
            [](const v1::Job& job) { return "remove the events of retired job " + job.id(); });
  if (!written) {
    Exec("ROLLBACK").IgnoreError();
    return failed;
  }
  if (auto st = Exec("COMMIT"); !st.ok()) {
    Exec("ROLLBACK").IgnoreError();
    return st;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::Job>> SqliteStore::ReadJobRows(Statement& q, const char* record,
                                                               const char* what) const {
  std::vector<v1::Job> out;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    v1::Job job;
    if (!job.ParseFromString(q.ColumnBytes(1))) {
      return absl::DataLossError(absl::StrCat(path_, ": ", record, " ",
                                              reinterpret_cast<const char*>(sqlite3_column_text(q.get(), 0)),
                                              " is not a valid record"));
    }
    out.push_back(std::move(job));
  }
  if (rc != SQLITE_DONE) return Error(what);
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqliteStore::LoadJobs() const {
  Statement q(db_, "SELECT id, job FROM jobs ORDER BY submitted, id");
  if (!q.ok()) return Error("read jobs");
  return ReadJobRows(q, "job", "read jobs");
}

absl::StatusOr<std::vector<v1::JobEvent>> SqliteStore::LoadEvents(const std::string& job_id, int limit) const {
  Statement q(db_, "SELECT unix_ms, text FROM (SELECT seq, unix_ms, text FROM events WHERE job_id = ?1"
                   " ORDER BY seq DESC LIMIT ?2) ORDER BY seq");
  if (!q.ok()) return Error("read events");
  q.Text(1, job_id);
  q.Int(2, limit);
  std::vector<v1::JobEvent> out;
  int rc;
  while ((rc = q.Step()) == SQLITE_ROW) {
    v1::JobEvent e;
    e.set_unix_ms(sqlite3_column_int64(q.get(), 0));
    e.set_text(reinterpret_cast<const char*>(sqlite3_column_text(q.get(), 1)));
    out.push_back(std::move(e));
  }
  if (rc != SQLITE_DONE) return Error("read events");
  return out;
}

absl::StatusOr<std::map<std::string, int64_t>> SqliteStore::LoadCounters() const {
  std::map<std::string, int64_t> out;
  if (!ReadKeyed(db_, "SELECT key, value FROM meta", [](sqlite3_stmt* q) { return sqlite3_column_int64(q, 1); }, out)) {
    return Error("read meta");
  }
  return out;
}

absl::StatusOr<std::map<std::string, NodeDrain>> SqliteStore::LoadDrained() const {
  std::map<std::string, NodeDrain> out;
  if (!ReadKeyed(db_, "SELECT name, drained, reason, since FROM nodes",
                 [](sqlite3_stmt* q) {
                   return NodeDrain{sqlite3_column_int64(q, 1) != 0,
                                    reinterpret_cast<const char*>(sqlite3_column_text(q, 2)),
                                    sqlite3_column_int64(q, 3)};
                 },
                 out)) {
    return Error("read nodes");
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> SqliteStore::LoadSecrets() const {
  std::map<std::string, std::string> out;
  if (!ReadKeyed(db_, "SELECT name, value FROM secrets",
                 [](sqlite3_stmt* q) { return std::string(reinterpret_cast<const char*>(sqlite3_column_text(q, 1))); },
                 out)) {
    return Error("read secrets");
  }
  return out;
}

absl::StatusOr<std::map<std::string, int64_t>> SqliteStore::LoadJoinedNodes() const {
  std::map<std::string, int64_t> out;
  if (!ReadKeyed(db_, "SELECT name, unix_ms FROM joined_nodes",
                 [](sqlite3_stmt* q) { return sqlite3_column_int64(q, 1); }, out)) {
    return Error("read joined_nodes");
  }
  return out;
}

absl::StatusOr<std::vector<v1::Job>> SqliteStore::LoadHistory(const HistoryQuery& query) const {
  // States as a bit set (JobState values are below 64).
  int64_t states = 0;
  for (int s : query.states) {
    if (s >= 0 && s < 63) states |= int64_t{1} << s;
  }
  Statement q(db_,
              "SELECT id, job FROM job_history WHERE id > ?1 AND submitted >= ?2 AND (?3 = '' OR owner = ?3)"
              " AND (?4 = '' OR tenant = ?4) AND (?5 = 0 OR (?5 >> state) & 1) ORDER BY id LIMIT ?6");
  if (!q.ok()) return Error("read the job history");
  q.Text(1, query.after_id);
  q.Int(2, query.since_ms);
  q.Text(3, query.owner);
  q.Text(4, query.tenant);
  q.Int(5, states);
  q.Int(6, query.limit);
  return ReadJobRows(q, "retired job", "read the job history");
}

absl::StatusOr<v1::Job> SqliteStore::LoadRetiredJob(const std::string& job_id) const {
  Statement q(db_, "SELECT job FROM job_history WHERE id = ?1");
  if (!q.ok()) return Error("read the job history");
  q.Text(1, job_id);
  const int rc = q.Step();
  if (rc == SQLITE_DONE) return absl::NotFoundError(absl::StrCat("job ", job_id, " was not retired"));
  if (rc != SQLITE_ROW) return Error("read the job history");
  v1::Job job;
  if (!job.ParseFromString(q.ColumnBytes(0))) {
    return absl::DataLossError(absl::StrCat(path_, ": retired job ", job_id, " is not a valid record"));
  }
  return job;
}

}  // namespace synergy::daemon
