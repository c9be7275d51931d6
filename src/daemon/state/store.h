#pragma once
// synergyd's durable state, as the daemon sees it: a Batch is one
// transaction (a submitted job and its id counter land together or not at
// all), and the daemon acknowledges, sends or changes anything only after
// Commit returns OK.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

// A node's drain as stored: on or off, the admin's reason, and since when.
struct NodeDrain {
  bool drained = false;
  std::string reason;
  int64_t since_ms = 0;
};

struct Batch {
  std::vector<v1::Job> jobs;                           // upserted (events field not stored)
  std::vector<std::pair<std::string, v1::JobEvent>> events;  // (job id, event) appended
  std::map<std::string, int64_t> counters;             // raised to this value, never lowered:
                                                       // id counters of groups that commit out
                                                       // of order must not go back
  std::map<std::string, NodeDrain> drained;            // node -> its drain
  std::map<std::string, std::string> secrets;          // name -> value, written once (never replaced)
  std::map<std::string, int64_t> joined_nodes;         // node -> when it joined with a join credential
  // Ended jobs moved from the jobs table (their events dropped) into the
  // history table, as given; a job retired is never written to the jobs
  // table again, whatever batch carries it.
  std::vector<v1::Job> retired;
  // Adds `job`, or replaces the batch's earlier record of it: a batch
  // holds one record per job, the latest.
  void PutJob(const v1::Job& job) {
    auto [at, added] = job_index.emplace(job.id(), jobs.size());
    if (added) {
      jobs.push_back(job);
    } else {
      jobs[at->second] = job;
    }
  }
  std::map<std::string, size_t> job_index;  // id -> position in `jobs` (PutJob's; not stored)
  // The jobs this batch appends events to, once each (whose events a
  // commit trims to Store::kMaxEventsPerJob).
  std::set<std::string> jobs_with_events() const {
    std::set<std::string> ids;
    for (const auto& [job, event] : events) ids.insert(job);
    return ids;
  }
  bool empty() const {
    return jobs.empty() && events.empty() && counters.empty() && drained.empty() && secrets.empty() &&
           joined_nodes.empty() && retired.empty();
  }
};

// Which retired jobs LoadHistory reads: ids after `after_id` in id order,
// at most `limit`, submitted at or after since_ms, of the given owner and
// tenant ("" = any) and states (empty = any).
struct HistoryQuery {
  std::string after_id;
  int64_t since_ms = 0;
  std::string owner;
  std::string tenant;
  std::vector<int> states;
  int limit = 500;
};

// Where synergyd's state lives. Commit is all or nothing: a batch that
// fails leaves the stored state as it was, and the daemon then acts on
// none of it. Implementations: SqliteStore (sqlite_store.h); tests add one
// that fails on command.
class Store {
 public:
  // A job's record as stored: the message without its events (a table of
  // their own).
  static std::string StoredRecord(const v1::Job& job) {
    if (job.events_size() == 0) return job.SerializeAsString();
    v1::Job stored = job;
    stored.clear_events();
    return stored.SerializeAsString();
  }

  virtual ~Store() = default;

  // A job keeps its newest kMaxEventsPerJob events: a commit that appends
  // beyond drops the oldest (an agent confirming checkpoints without end
  // must not grow the store without end).
  static constexpr int kMaxEventsPerJob = 1000;

  // Errors are UNAVAILABLE (the caller may retry) naming the store, or
  // ABORTED, for good, where another daemon has taken the state over
  // (PostgresStore's fencing): this one must not write again.
  virtual absl::Status Commit(const Batch& batch) = 0;

  virtual absl::StatusOr<std::vector<v1::Job>> LoadJobs() const = 0;  // by submission order
  // The job's last `limit` events, oldest first.
  virtual absl::StatusOr<std::vector<v1::JobEvent>> LoadEvents(const std::string& job_id,
                                                               int limit = 1000) const = 0;
  virtual absl::StatusOr<std::map<std::string, int64_t>> LoadCounters() const = 0;
  virtual absl::StatusOr<std::map<std::string, NodeDrain>> LoadDrained() const = 0;
  virtual absl::StatusOr<std::map<std::string, std::string>> LoadSecrets() const = 0;
  virtual absl::StatusOr<std::map<std::string, int64_t>> LoadJoinedNodes() const = 0;
  // Retired jobs (Batch::retired) the query selects.
  virtual absl::StatusOr<std::vector<v1::Job>> LoadHistory(const HistoryQuery& query) const = 0;
  // One retired job; NOT_FOUND when no job of that id was retired.
  virtual absl::StatusOr<v1::Job> LoadRetiredJob(const std::string& job_id) const = 0;

  // True once another daemon has taken the state over (ABORTED commits):
  // this one must stop (synergyd steps down). Stores with one writer by
  // construction (SQLite's lock file) never are.
  virtual bool fenced() const { return false; }

  // Where several daemons share the state (PostgresStore): this one's
  // instance name, the epoch it leads at, and how many times leadership had
  // passed between instances when it took it. nullopt: a single writer.
  struct Leadership {
    std::string instance;
    int64_t epoch = 0;
    int64_t takeovers = 0;
  };
  virtual std::optional<Leadership> leadership() const { return std::nullopt; }

  // What to call it in messages (the database's path).
  virtual const std::string& path() const = 0;
};

}  // namespace synergy::daemon
