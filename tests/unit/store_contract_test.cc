// What every Store promises (daemon/state/store.h), checked on each
// implementation: SQLite (a file) and PostgreSQL (a server of the test's
// own, tests/unit/test_postgres.h; skipped where none is installed).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "daemon/state/postgres_store.h"
#include "daemon/state/sqlite_store.h"
#include "gtest/gtest.h"
#include "test_postgres.h"

namespace synergy::daemon {
namespace {

namespace fs = std::filesystem;

v1::Job ContractJob(const std::string& id, int64_t submitted, v1::JobState state) {
  v1::Job job;
  job.set_id(id);
  job.set_submitted_unix_ms(submitted);
  job.set_state(state);
  return job;
}

v1::JobEvent ContractEvent(int64_t ms, const std::string& text) {
  v1::JobEvent e;
  e.set_unix_ms(ms);
  e.set_text(text);
  return e;
}

class StoreContractTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string name =
        absl::StrCat("contract_", ::testing::UnitTest::GetInstance()->current_test_info()->name(), "_", ::getpid());
    std::string clean;
    for (char c : name) clean.push_back(std::isalnum(static_cast<unsigned char>(c)) ? std::tolower(c) : '_');
    if (GetParam() == "postgres") {
      SYNERGY_TEST_POSTGRES(server);
      database_ = clean.substr(0, 60);
      where_ = server->NewDatabase(database_);
      ASSERT_FALSE(where_.empty()) << "cannot create database " << database_;
    } else {
      dir_ = fs::temp_directory_path() / clean;
      fs::remove_all(dir_);
      fs::create_directories(dir_);
      where_ = (dir_ / "state.db").string();
    }
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  absl::StatusOr<std::unique_ptr<Store>> Open() {
    if (GetParam() == "postgres") {
      // Each open is another synergyd: the same instance would take over.
      PostgresLeadership who;
      who.instance = "synergyd-" + std::to_string(++opened_);
      auto s = PostgresStore::Open(where_, who);
      if (!s.ok()) return s.status();
      return std::unique_ptr<Store>(std::move(*s));
    }
    auto s = SqliteStore::Open(where_);
    if (!s.ok()) return s.status();
    return std::unique_ptr<Store>(std::move(*s));
  }
  std::unique_ptr<Store> OpenOrDie() {
    auto s = Open();
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  fs::path dir_;
  std::string database_;
  std::string where_;  // the SQLite path or the PostgreSQL DSN
  int opened_ = 0;
};

TEST_P(StoreContractTest, BatchesAreDurableAcrossReopen) {
  {
    auto store = OpenOrDie();
    ASSERT_NE(store, nullptr);
    Batch b;
    v1::Job job = ContractJob("j-000001", 5, v1::JOB_STATE_QUEUED);
    job.mutable_spec()->set_gpus(2);
    b.jobs.push_back(job);
    b.events.emplace_back("j-000001", ContractEvent(5, "submitted"));
    b.counters["next_job"] = 2;
    b.drained["n1"] = NodeDrain{true, "fan failing \xff", 7};  // not UTF-8: stored as given
    b.secrets["key"] = "k3y";
    b.joined_nodes["n1"] = 11;
    ASSERT_TRUE(store->Commit(b).ok());
    // An update replaces the record; events are appended.
    job.set_state(v1::JOB_STATE_RUNNING);
    Batch b2;
    b2.jobs.push_back(job);
    b2.events.emplace_back("j-000001", ContractEvent(6, "granted"));
    ASSERT_TRUE(store->Commit(b2).ok());
  }
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  auto jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ((*jobs)[0].spec().gpus(), 2);
  auto events = store->LoadEvents("j-000001");
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[1].text(), "granted");
  EXPECT_EQ((*events)[1].unix_ms(), 6);
  EXPECT_EQ(store->LoadCounters()->at("next_job"), 2);
  const NodeDrain drain = store->LoadDrained()->at("n1");
  EXPECT_TRUE(drain.drained);
  EXPECT_EQ(drain.reason, "fan failing \xff");
  EXPECT_EQ(drain.since_ms, 7);
  EXPECT_EQ(store->LoadSecrets()->at("key"), "k3y");
  EXPECT_EQ(store->LoadJoinedNodes()->at("n1"), 11);
}

TEST_P(StoreContractTest, JobsLoadInSubmissionOrderThenById) {
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  Batch b;
  for (const auto& [id, at] : std::vector<std::pair<std::string, int64_t>>{
           {"j-000010", 5}, {"j-000002", 5}, {"j-000001", 9}, {"j-0000A0", 5}, {"j-000003", 1}}) {
    b.jobs.push_back(ContractJob(id, at, v1::JOB_STATE_QUEUED));
  }
  ASSERT_TRUE(store->Commit(b).ok());
  std::vector<std::string> ids;
  const auto jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  for (const v1::Job& j : *jobs) ids.push_back(j.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"j-000003", "j-000002", "j-000010", "j-0000A0", "j-000001"}));
}

TEST_P(StoreContractTest, AJobKeepsItsNewestEventsOnly) {
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  const int total = Store::kMaxEventsPerJob + 250;
  for (int i = 0; i < total; i += 50) {
    Batch b;
    for (int k = i; k < i + 50; ++k)
      b.events.emplace_back("j-000001", ContractEvent(k, "checkpoint " + std::to_string(k)));
    if (i == 0) b.events.emplace_back("j-000002", ContractEvent(0, "submitted"));
    ASSERT_TRUE(store->Commit(b).ok());
  }
  auto events = store->LoadEvents("j-000001", 10 * total);
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), static_cast<size_t>(Store::kMaxEventsPerJob));
  EXPECT_EQ(events->front().text(), "checkpoint " + std::to_string(total - Store::kMaxEventsPerJob));
  EXPECT_EQ(events->back().text(), "checkpoint " + std::to_string(total - 1));
  EXPECT_EQ(store->LoadEvents("j-000001", 3)->front().text(), "checkpoint " + std::to_string(total - 3));
  EXPECT_EQ(store->LoadEvents("j-000002")->size(), 1u) << "another job's events are its own";
}

// Submissions take ids under the daemon's lock but commit in groups that
// may land out of order: a counter a later group sets lower must not take
// the stored one back, or a restart would give an id a second time.
TEST_P(StoreContractTest, ACounterIsNeverLowered) {
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  Batch higher, lower;
  higher.counters["next_job"] = 7;
  lower.counters["next_job"] = 6;
  ASSERT_TRUE(store->Commit(higher).ok());
  ASSERT_TRUE(store->Commit(lower).ok());
  EXPECT_EQ(store->LoadCounters()->at("next_job"), 7);
}

TEST_P(StoreContractTest, ABatchThatFailsLeavesTheStoreAsItWas) {
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  Batch first;
  first.secrets["key"] = "one";
  ASSERT_TRUE(store->Commit(first).ok());
  // A secret is written once: this batch fails, its job with it.
  Batch second;
  second.jobs.push_back(ContractJob("j-000001", 1, v1::JOB_STATE_QUEUED));
  second.counters["next_job"] = 2;
  second.secrets["key"] = "two";
  const absl::Status st = store->Commit(second);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
  EXPECT_NE(st.message().find(store->path()), std::string::npos) << st;
  EXPECT_TRUE(store->LoadJobs()->empty());
  EXPECT_TRUE(store->LoadCounters()->empty());
  EXPECT_EQ(store->LoadSecrets()->at("key"), "one");
  // The store goes on after a failed batch.
  Batch third;
  third.jobs.push_back(ContractJob("j-000001", 1, v1::JOB_STATE_QUEUED));
  ASSERT_TRUE(store->Commit(third).ok());
  EXPECT_EQ(store->LoadJobs()->size(), 1u);
}

TEST_P(StoreContractTest, ARetiredJobLeavesTheJobsForTheHistoryAndStaysThere) {
  auto store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  Batch b;
  for (int i = 1; i <= 4; ++i) {
    v1::Job job =
        ContractJob("j-00000" + std::to_string(i), 10 * i, i % 2 ? v1::JOB_STATE_SUCCEEDED : v1::JOB_STATE_FAILED);
    job.set_owner(i <= 2 ? "alice" : "bob");
    job.mutable_spec()->set_tenant(i == 4 ? "vision" : "");
    b.jobs.push_back(job);
    b.events.emplace_back(job.id(), ContractEvent(1, "submitted"));
  }
  ASSERT_TRUE(store->Commit(b).ok());
  Batch retire;
  retire.retired = {b.jobs[0], b.jobs[1], b.jobs[2], b.jobs[3]};
  ASSERT_TRUE(store->Commit(retire).ok());
  EXPECT_TRUE(store->LoadJobs()->empty());
  EXPECT_TRUE(store->LoadEvents("j-000001")->empty());
  // A flush that read a job before its retirement and commits after does
  // not bring it back.
  Batch late;
  late.jobs.push_back(b.jobs[0]);
  late.events.emplace_back("j-000001", ContractEvent(2, "late"));
  ASSERT_TRUE(store->Commit(late).ok());
  EXPECT_TRUE(store->LoadJobs()->empty());
  EXPECT_TRUE(store->LoadEvents("j-000001")->empty());

  auto ids = [&](const HistoryQuery& q) {
    std::vector<std::string> out;
    const auto jobs = store->LoadHistory(q);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    if (jobs.ok()) {
      for (const v1::Job& j : *jobs) out.push_back(j.id());
    }
    return out;
  };
  EXPECT_EQ(ids({}), (std::vector<std::string>{"j-000001", "j-000002", "j-000003", "j-000004"}));
  EXPECT_EQ(ids({.owner = "bob"}), (std::vector<std::string>{"j-000003", "j-000004"}));
  EXPECT_EQ(ids({.tenant = "vision"}), (std::vector<std::string>{"j-000004"}));
  EXPECT_EQ(ids({.states = {v1::JOB_STATE_FAILED}}), (std::vector<std::string>{"j-000002", "j-000004"}));
  EXPECT_EQ(ids({.after_id = "j-000002", .limit = 1}), (std::vector<std::string>{"j-000003"}));
  EXPECT_EQ(ids({.since_ms = 30}), (std::vector<std::string>{"j-000003", "j-000004"}));
  EXPECT_EQ(store->LoadRetiredJob("j-000003")->owner(), "bob");
  EXPECT_EQ(store->LoadRetiredJob("j-000009").status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreContractTest, ASecondDaemonOnTheSameStateIsRefusedUntilTheFirstIsGone) {
  auto first = OpenOrDie();
  ASSERT_NE(first, nullptr);
  auto second = Open();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kAlreadyExists) << second.status();
  first.reset();
  EXPECT_TRUE(Open().ok());
}

INSTANTIATE_TEST_SUITE_P(EachStore, StoreContractTest, ::testing::Values("sqlite", "postgres"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// PostgreSQL only: a server that drops the session (a restart, a network
// cut) costs the calls made while it is away, not the store.
TEST(PostgresStore, ADroppedSessionIsResumedAndStillLeads) {
  SYNERGY_TEST_POSTGRES(server);
  const std::string db = absl::StrCat("dropped_", ::getpid());
  const std::string dsn = server->NewDatabase(db);
  auto store = PostgresStore::Open(dsn);
  ASSERT_TRUE(store.ok()) << store.status();
  Batch b;
  b.counters["next_job"] = 3;
  ASSERT_TRUE((*store)->Commit(b).ok());
  server->DropSessions(db);
  // The commit finds the session ended before it sent anything, and runs
  // on a new one.
  Batch again;
  again.counters["next_job"] = 4;
  const absl::Status st = (*store)->Commit(again);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ((*store)->LoadCounters()->at("next_job"), 4);
  // And still leads: another synergyd is refused.
  PostgresLeadership other;
  other.instance = "another";
  EXPECT_EQ(PostgresStore::Open(dsn, other).status().code(), absl::StatusCode::kAlreadyExists);
}

// Leadership: a lease in the database, with an epoch every write checks.
class PostgresLeadershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SYNERGY_TEST_POSTGRES(server);
    server_ = server;
    database_ = absl::StrCat("leadership_", ::getpid());
    dsn_ = server->NewDatabase(database_);
    ASSERT_FALSE(dsn_.empty());
  }
  static PostgresLeadership As(const std::string& instance, int64_t lease_ms, bool renew) {
    PostgresLeadership l;
    l.instance = instance;
    l.lease_ms = lease_ms;
    l.renew = renew;
    return l;
  }
  static Batch OneJob(const std::string& id) {
    Batch b;
    b.jobs.push_back(ContractJob(id, 1, v1::JOB_STATE_QUEUED));
    return b;
  }
  synergy::testing::TestPostgres* server_ = nullptr;
  std::string database_;
  std::string dsn_;
};

TEST_F(PostgresLeadershipTest, AStandbyTakesOverWhenTheLeaseRunsOutAndFencesThePausedLeader) {
  // a stops renewing: a synergyd stopped with SIGSTOP.
  auto a = PostgresStore::Open(dsn_, As("a", 400, false));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE((*a)->Commit(OneJob("j-000001")).ok());
  auto early = PostgresStore::Open(dsn_, As("b", 400, true));
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), absl::StatusCode::kAlreadyExists) << early.status();
  EXPECT_NE(early.status().message().find("synergyd 'a' leads (epoch 1,"), std::string::npos) << early.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  auto b = PostgresStore::Open(dsn_, As("b", 1500, true));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->epoch(), 2);
  ASSERT_TRUE((*b)->Commit(OneJob("j-000002")).ok());
  // a wakes: whatever it writes is refused, and stays refused.
  const absl::Status late = (*a)->Commit(OneJob("j-000099"));
  EXPECT_EQ(late.code(), absl::StatusCode::kAborted) << late;
  EXPECT_NE(late.message().find("fenced"), std::string::npos) << late;
  EXPECT_EQ((*a)->Commit(OneJob("j-000098")).code(), absl::StatusCode::kAborted);
  std::vector<std::string> ids;
  const auto jobs = (*b)->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  for (const v1::Job& j : *jobs) ids.push_back(j.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"j-000001", "j-000002"}));
  // b keeps its lease by renewing (every 500 ms): a third is refused past
  // the lease b took.
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  EXPECT_EQ(PostgresStore::Open(dsn_, As("c", 400, true)).status().code(), absl::StatusCode::kAlreadyExists);
}

TEST_F(PostgresLeadershipTest, AStandbyTakesOverOnlyAfterSeeingTheLeaseUnrenewedForItsWholeWaitOnItsOwnClock) {
  // a renews every second (its lease: 2 s): a standby that looks every
  // 100 ms for 4 s sees each renewal and never takes over.
  auto a = PostgresStore::Open(dsn_, As("a", 3000, true));
  ASSERT_TRUE(a.ok()) << a.status();
  LeaseSighting seen;
  PostgresLeadership b = As("b", 3000, true);
  b.sighting = &seen;
  for (int i = 0; i < 40; ++i) {
    const auto early = PostgresStore::Open(dsn_, b);
    ASSERT_EQ(early.status().code(), absl::StatusCode::kAlreadyExists) << "try " << i << ": " << early.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(seen.epoch, 1);
  // a stops cleanly and comes back without renewing (paused): b takes over
  // once it has seen that lease unrenewed for 2 s, and not before.
  a->reset();
  auto a_paused = PostgresStore::Open(dsn_, As("a", 3000, false));  // the released lease: at once, epoch 2
  ASSERT_TRUE(a_paused.ok()) << a_paused.status();
  const auto first_look = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<PostgresStore>> taken = absl::UnknownError("not tried");
  while (!taken.ok()) {
    taken = PostgresStore::Open(dsn_, b);
    ASSERT_TRUE(taken.ok() || taken.status().code() == absl::StatusCode::kAlreadyExists) << taken.status();
    if (!taken.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const auto waited = std::chrono::steady_clock::now() - first_look;
  EXPECT_EQ(StandbyWaitMs(3000), 2000);
  EXPECT_GE(waited, std::chrono::milliseconds(2000));
  EXPECT_LT(waited, std::chrono::milliseconds(3500));  // not a second wait after the expiry
  EXPECT_EQ((*taken)->epoch(), 3);
  EXPECT_EQ((*taken)->leadership()->takeovers, 1);  // a to b; a back as itself is not one
  EXPECT_EQ((*a_paused)->Commit(OneJob("j-000001")).code(), absl::StatusCode::kAborted);
}

TEST_F(PostgresLeadershipTest, AStandbyThatFirstLooksAfterTheLeaseRanOutStillWaitsItsWholeWait) {
  // The database was down (or the standby just started): the lease it
  // first sees has run out by the database's clock, but the standby has
  // not seen the leader fail to renew, so it waits, giving the leader its
  // chance to renew.
  auto a = PostgresStore::Open(dsn_, As("a", 1000, false));  // a lease of 500 ms, never renewed
  ASSERT_TRUE(a.ok()) << a.status();
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  LeaseSighting seen;
  PostgresLeadership b = As("b", 1000, true);
  b.sighting = &seen;
  const auto first_look = std::chrono::steady_clock::now();
  const auto first = PostgresStore::Open(dsn_, b);
  EXPECT_EQ(first.status().code(), absl::StatusCode::kAlreadyExists) << "taken at first sight: " << first.status();
  absl::StatusOr<std::unique_ptr<PostgresStore>> taken = absl::UnknownError("not tried");
  while (!taken.ok()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    taken = PostgresStore::Open(dsn_, b);
    ASSERT_TRUE(taken.ok() || taken.status().code() == absl::StatusCode::kAlreadyExists) << taken.status();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - first_look, std::chrono::milliseconds(StandbyWaitMs(1000)));
  EXPECT_EQ((*taken)->epoch(), 2);
}

TEST_F(PostgresLeadershipTest, ACleanStopHandsOverAtOnceAndTheSameInstanceTakesOverAtOnce) {
  auto a = PostgresStore::Open(dsn_, As("a", 60000, true));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(PostgresStore::Open(dsn_, As("b", 60000, true)).status().code(), absl::StatusCode::kAlreadyExists);
  a->reset();  // a clean stop releases the lease
  auto b = PostgresStore::Open(dsn_, As("b", 60000, false));
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->epoch(), 2);
  // A second synergyd of the same name is not given b's lease while b's
  // session lives; b killed (its session ends, nothing released) and
  // restarted: the new one leads at once, and the old one is fenced.
  EXPECT_EQ(PostgresStore::Open(dsn_, As("b", 60000, false)).status().code(), absl::StatusCode::kAlreadyExists);
  server_->DropSessions(database_);
  auto b_again = PostgresStore::Open(dsn_, As("b", 60000, false));
  ASSERT_TRUE(b_again.ok()) << b_again.status();
  EXPECT_EQ((*b_again)->epoch(), 3);
  EXPECT_EQ((*b)->Commit(OneJob("j-000001")).code(), absl::StatusCode::kAborted);
  EXPECT_TRUE((*b_again)->Commit(OneJob("j-000001")).ok());
}

TEST(PostgresStore, ErrorsNameTheDatabaseNeverThePassword) {
  auto store = PostgresStore::Open("host=127.0.0.1 port=1 dbname=nowhere user=u password=hunter2 connect_timeout=2");
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(store.status().message().find("127.0.0.1"), std::string::npos) << store.status();
  EXPECT_EQ(store.status().message().find("hunter2"), std::string::npos) << store.status();
}

}  // namespace
}  // namespace synergy::daemon
