#include "daemon/state/sqlite_store.h"

#include <sys/stat.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "sqlite3.h"

namespace synergy::daemon {
namespace {

std::string TempDb(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("synergy-store-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "state.db").string();
}

// It holds the credential key and jobs' environments: the database and its
// WAL are the owner's only, whatever the umask.
TEST(Store, TheDatabaseAndItsWalArePrivate) {
  const std::string path = TempDb("private");
  const mode_t old_mask = ::umask(022);
  auto store = SqliteStore::Open(path);
  ::umask(old_mask);
  ASSERT_TRUE(store.ok()) << store.status();
  Batch b;
  b.secrets["key"] = "value";
  ASSERT_TRUE((*store)->Commit(b).ok());
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    const auto perms = std::filesystem::status(file).permissions();
    EXPECT_EQ(perms & (std::filesystem::perms::group_all | std::filesystem::perms::others_all),
              std::filesystem::perms::none)
        << file;
  }
}

TEST(Store, BatchesAreDurableAcrossReopen) {
  const std::string path = TempDb("reopen");
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    Batch b;
    v1::Job job;
    job.set_id("j-000001");
    job.set_submitted_unix_ms(5);
    job.set_state(v1::JOB_STATE_QUEUED);
    job.mutable_spec()->set_gpus(2);
    b.jobs.push_back(job);
    v1::JobEvent e;
    e.set_unix_ms(5);
    e.set_text("submitted");
    b.events.emplace_back("j-000001", e);
    b.counters["next_job"] = 2;
    b.drained["n1"] = NodeDrain{true, "fan failing", 7};
    ASSERT_TRUE((*store)->Commit(b).ok());
    // An update replaces the record; events are appended.
    job.set_state(v1::JOB_STATE_RUNNING);
    Batch b2;
    b2.jobs.push_back(job);
    e.set_text("granted");
    b2.events.emplace_back("j-000001", e);
    ASSERT_TRUE((*store)->Commit(b2).ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok());
  auto jobs = (*store)->LoadJobs();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ((*jobs)[0].spec().gpus(), 2);
  auto events = (*store)->LoadEvents("j-000001");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].text(), "granted");
  EXPECT_EQ((*store)->LoadCounters()->at("next_job"), 2);
  const NodeDrain drain = (*store)->LoadDrained()->at("n1");
  EXPECT_TRUE(drain.drained);
  EXPECT_EQ(drain.reason, "fan failing");
  EXPECT_EQ(drain.since_ms, 7);
}

// An agent confirming checkpoints without end must not grow the store
// without end: a job keeps its newest kMaxEventsPerJob events.
TEST(Store, AJobKeepsItsNewestEventsOnly) {
  auto store = SqliteStore::Open(TempDb("event-cap"));
  ASSERT_TRUE(store.ok()) << store.status();
  const int total = Store::kMaxEventsPerJob + 250;
  for (int i = 0; i < total; i += 50) {
    Batch b;
    for (int k = i; k < i + 50; ++k) {
      v1::JobEvent e;
      e.set_unix_ms(k);
      e.set_text("checkpoint " + std::to_string(k));
      b.events.emplace_back("j-000001", e);
    }
    v1::JobEvent other;
    other.set_text("submitted");
    if (i == 0) b.events.emplace_back("j-000002", other);
    ASSERT_TRUE((*store)->Commit(b).ok());
  }
  auto events = (*store)->LoadEvents("j-000001", 10 * total);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), static_cast<size_t>(Store::kMaxEventsPerJob));
  EXPECT_EQ(events->front().text(), "checkpoint " + std::to_string(total - Store::kMaxEventsPerJob));
  EXPECT_EQ(events->back().text(), "checkpoint " + std::to_string(total - 1));
  EXPECT_EQ((*store)->LoadEvents("j-000002")->size(), 1u) << "another job's events are its own";
}

// Submissions take ids under the daemon's lock but commit in groups that
// may land out of order: a counter a later group sets lower must not take
// the stored one back, or a restart would give an id a second time.
// A state database written before drains had reasons (here: one whose
// migration stopped after the first column) opens, keeps its drains, and
// stores reasons from then on.
TEST(Store, ADatabaseWithoutDrainReasonsGainsThem) {
  const std::string path = TempDb("migrate");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE nodes(name TEXT PRIMARY KEY, drained INTEGER NOT NULL,"
                         " reason TEXT NOT NULL DEFAULT '');"  // cut short after the first column
                         "INSERT INTO nodes(name, drained) VALUES('n1', 1), ('n2', 0);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    auto drained = (*store)->LoadDrained();
    ASSERT_TRUE(drained.ok()) << drained.status();
    EXPECT_TRUE(drained->at("n1").drained);
    EXPECT_EQ(drained->at("n1").reason, "");
    EXPECT_FALSE(drained->at("n2").drained);
    Batch b;
    b.drained["n2"] = NodeDrain{true, "memory errors", 9};
    ASSERT_TRUE((*store)->Commit(b).ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->LoadDrained()->at("n2").reason, "memory errors");
}

TEST(Store, ACounterIsNeverLowered) {
  auto store = SqliteStore::Open(TempDb("counter"));
  ASSERT_TRUE(store.ok()) << store.status();
  Batch higher, lower;
  higher.counters["next_job"] = 7;
  lower.counters["next_job"] = 6;
  ASSERT_TRUE((*store)->Commit(higher).ok());
  ASSERT_TRUE((*store)->Commit(lower).ok());
  EXPECT_EQ((*store)->LoadCounters()->at("next_job"), 7);
}

TEST(Store, OpenFailureNamesThePath) {
  auto store = SqliteStore::Open("/nonexistent-dir/x/state.db");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/nonexistent-dir/x/state.db"), std::string::npos);
}

}  // namespace
}  // namespace synergy::daemon
