// Tenants' GPU quotas in synergyd, driven by hand (issue 44, item 5): a
// tenant without borrowing never holds more than its quota, even on an
// idle cluster, and its waiting jobs say so; a borrowing tenant runs on
// what others leave unused and gives it back at the next round once their
// jobs wait for it; launches between rounds keep to the quotas too.
#include "daemon/state/daemon_state.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class TenantQuotaTest : public DaemonStateTest {
 protected:
  // FIFO on n1 with 4 GPUs; vision may hold 2 (no borrowing), nlp 2
  // (borrowing).
  std::unique_ptr<DaemonState> Cluster(bool between_rounds = false) {
    config_.policy = "fifo";
    config_.heartbeat_timeout_s = 3600;
    config_.launch_between_rounds = between_rounds;
    config_.auth.tenants = {{"vision", 2, false}, {"nlp", 2, true}};
    auto s = Open();
    AddNode(*s, "n1", 4, 16, 96, 0);
    return s;
  }
  // A 1-GPU agent job (it checkpoints: a round may end its lease).
  static std::string Submit(DaemonState& s, const std::string& tenant, int64_t now_ms) {
    v1::JobSpec spec = Spec(1, "res18", 100000);
    spec.set_tenant(tenant);
    return *s.Submit(spec, tenant == "vision" ? "alice" : "bob", now_ms);
  }
  static int Holding(DaemonState& s, const std::string& tenant) {
    const v1::ClusterState cluster = s.Cluster();
    for (const v1::TenantState& t : cluster.tenants()) {
      if (t.name() == tenant) return t.allocated_gpus();
    }
    return 0;
  }
};

TEST_F(TenantQuotaTest, ATenantWithoutBorrowingNeverPassesItsQuotaEvenOnAnIdleCluster) {
  auto s = Cluster();
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(Submit(*s, "vision", 0));
  ASSERT_TRUE(s->RunRound(1000).ok());
  EXPECT_EQ(Holding(*s, "vision"), 2);
  EXPECT_EQ(s->Cluster().allocated_gpus(), 2) << "two GPUs stay free: vision may not borrow";
  EXPECT_EQ(s->GetJob(ids[3])->reason(), "waiting: tenant vision holds 2 of its quota of 2 GPUs");
  const v1::ClusterState c = s->Cluster();
  for (const v1::TenantState& t : c.tenants()) {
    if (t.name() == "vision") EXPECT_EQ(t.waiting_jobs(), 2);
    if (t.name() == "nlp") EXPECT_EQ(t.quota_gpus(), 2);
  }
}

TEST_F(TenantQuotaTest, BorrowedGpusAreReturnedAtTheNextRoundWhenTheLendersJobsWait) {
  auto s = Cluster();
  std::vector<std::string> nlp;
  for (int i = 0; i < 4; ++i) nlp.push_back(Submit(*s, "nlp", 0));
  ASSERT_TRUE(s->RunRound(1000).ok());
  EXPECT_EQ(Holding(*s, "nlp"), 4) << "nlp borrows the two GPUs vision does not use";
  std::map<std::string, int64_t> epoch;
  std::vector<v1::RunningProcess> running;
  for (const std::string& id : nlp) {
    epoch[id] = s->GetJob(id)->lease().epoch();
    running.push_back(Running(id, epoch[id]));
  }
  Beat(*s, "n1", 1500, running);  // all four launched
  const std::string a = Submit(*s, "vision", 2000);
  const std::string b = Submit(*s, "vision", 2000);
  ASSERT_TRUE(s->RunRound(3000).ok());
  // The round takes the borrowed two back: their leases end (agents
  // checkpoint first); nlp keeps its quota's worth.
  EXPECT_EQ(Holding(*s, "nlp"), 2);
  std::vector<v1::ProcessExit> exits;
  std::vector<v1::RunningProcess> still;
  for (const std::string& id : nlp) {
    if (s->GetJob(id)->has_lease()) {
      still.push_back(Running(id, epoch[id]));
    } else {
      exits.push_back(Exit(id, epoch[id], 0));
    }
  }
  ASSERT_EQ(exits.size(), 2u);
  // Once their processes have exited, vision gets its two.
  Beat(*s, "n1", 3500, still, exits);
  ASSERT_TRUE(s->RunRound(4000).ok());
  EXPECT_EQ(Holding(*s, "vision"), 2);
  EXPECT_EQ(Holding(*s, "nlp"), 2);
  EXPECT_TRUE(s->GetJob(a)->has_lease());
  EXPECT_TRUE(s->GetJob(b)->has_lease());
}

TEST_F(TenantQuotaTest, LaunchesBetweenRoundsKeepToTheQuotas) {
  auto s = Cluster(/*between_rounds=*/true);
  const std::string first = Submit(*s, "vision", 0);
  ASSERT_TRUE(s->RunRound(1000).ok());
  Beat(*s, "n1", 1200, {Running(first, s->GetJob(first)->lease().epoch())});
  // Arrivals between rounds: one more fits vision's quota, the third not,
  // though two GPUs are free.
  const std::string second = Submit(*s, "vision", 1500);
  const std::string third = Submit(*s, "vision", 1500);
  ASSERT_TRUE(s->LaunchBetweenRounds(2000).ok());
  EXPECT_TRUE(s->GetJob(second)->has_lease());
  EXPECT_FALSE(s->GetJob(third)->has_lease());
  EXPECT_EQ(Holding(*s, "vision"), 2);
}

}  // namespace
}  // namespace synergy::daemon

namespace synergy::daemon {
namespace {

class FairShareTest : public TenantQuotaTest {
 protected:
  // FIFO on one GPU, fair share with `half_life_s` (0: off), after alice's
  // tenant vision held the GPU for ten minutes (its job ended at 601.5 s).
  std::unique_ptr<DaemonState> AfterVisionUsedTheGpu(int64_t half_life_s) {
    config_.policy = "fifo";
    config_.heartbeat_timeout_s = 3600;
    config_.launch_between_rounds = false;
    config_.fair_share_half_life_s = half_life_s;
    auto s = Open();
    AddNode(*s, "n1", 1, 4, 24, 0);
    const std::string used = *s->Submit(Tenants(Spec(1), "vision"), "alice", 0);
    EXPECT_TRUE(s->RunRound(1000).ok());
    const int64_t epoch = s->GetJob(used)->lease().epoch();
    EXPECT_EQ(Beat(*s, "n1", 1200).launch_size(), 1);
    Beat(*s, "n1", 1500, {Running(used, epoch)});
    Beat(*s, "n1", 601500, {}, {Exit(used, epoch, 0)});
    return s;
  }
  static v1::JobSpec Tenants(v1::JobSpec spec, const std::string& tenant) {
    spec.set_tenant(tenant);
    return spec;
  }
};

// Fair share in synergyd: alice's tenant used the GPU lately (before a
// restart); bob's job, submitted after hers, runs first.
TEST_F(FairShareTest, TheTenantThatUsedLessGoesFirst) {
  auto s = AfterVisionUsedTheGpu(86400);
  // Usage survives a restart (from the stored jobs' GPU-seconds).
  s.reset();
  s = Open(601800);
  AddNode(*s, "n1", 1, 4, 24, 601900);
  const std::string alices = *s->Submit(Tenants(Spec(1), "vision"), "alice", 602000);
  const std::string bobs = *s->Submit(Tenants(Spec(1), "nlp"), "bob", 602500);
  ASSERT_TRUE(s->RunRound(603000).ok());
  EXPECT_TRUE(s->GetJob(bobs)->has_lease()) << "bob's tenant used nothing";
  EXPECT_FALSE(s->GetJob(alices)->has_lease());
}

TEST_F(FairShareTest, WithoutItFifoKeepsArrivalOrder) {
  auto s = AfterVisionUsedTheGpu(0);
  const std::string alices = *s->Submit(Tenants(Spec(1), "vision"), "alice", 602000);
  const std::string bobs = *s->Submit(Tenants(Spec(1), "nlp"), "bob", 602500);
  ASSERT_TRUE(s->RunRound(603000).ok());
  EXPECT_TRUE(s->GetJob(alices)->has_lease());
  EXPECT_FALSE(s->GetJob(bobs)->has_lease());
}

}  // namespace
}  // namespace synergy::daemon
