// synergyd on nodes of several GPU types: rounds plan by type (the typed
// round, with each job's views on each type), a lease records what a second
// held there is worth in the zoo's base type, service counts at that weight,
// and a measured profile records the type it was measured on.
#include <cmath>
#include <tuple>

#include "daemon/state/daemon_state.h"
#include "daemon/round/round_input.h"
#include "daemon/round/round_planner.h"
#include "daemon_state_fixture.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

class DaemonGpuTypesTest : public DaemonStateTest {
 protected:
  // The node a job's lease is on.
  static std::string NodeOf(const v1::Job& job) {
    return job.lease().slices_size() > 0 ? job.lease().slices(0).node() : "";
  }

  // A flat profile (the GPU bound at every point) over 2 to 12 CPUs at
  // 125 GB: `throughput` iterations per second everywhere.
  static v1::MeasuredProfile FlatProfile(const std::string& id, int64_t epoch, double throughput) {
    v1::MeasuredProfile profile;
    profile.set_job_id(id);
    profile.set_epoch(epoch);
    for (double cpus : {2.0, 4.0, 6.0, 8.0, 12.0}) {
      v1::ProfilePoint* p = profile.add_points();
      p->set_cpus(cpus);
      p->set_mem_gb(125);
      p->set_throughput(throughput);
    }
    return profile;
  }
};

TEST_F(DaemonGpuTypesTest, EachJobRunsOnOneTypeAndItsLeaseWeighsItsServiceByTheTypesSpeed) {
  config_.round_s = 1;
  auto s = Open();
  AddNode(*s, "fast", 1, 12, 250, 0, "v100");
  AddNode(*s, "slow", 1, 12, 250, 0, "k80");
  const std::string a = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  const std::string b = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  const RoundSnapshot snap = s->SnapshotForRound(0);
  ASSERT_TRUE(snap.typed);
  ASSERT_EQ(snap.cluster.gpu_types(), (std::vector<std::string>{"v100", "k80"}));
  ASSERT_EQ(snap.by_type.reference.at(NumericJobId(a)), snap.by_type.on_type.at(NumericJobId(a))[0]);
  const double k80_weight = ServiceWeight(snap.by_type, NumericJobId(a), 1);
  // res18 is GPU-bound at its share: a second on a K80 is worth its speed
  // there (zoo.yaml: 0.086 of a V100).
  EXPECT_NEAR(k80_weight, 0.086, 1e-9);
  EXPECT_DOUBLE_EQ(ServiceWeight(snap.by_type, NumericJobId(a), 0), 1.0);

  ASSERT_TRUE(s->RunRound(0).ok());
  const v1::Job ja = *s->GetJob(a);
  const v1::Job jb = *s->GetJob(b);
  ASSERT_TRUE(ja.has_lease() && jb.has_lease());
  // FIFO: the first job chooses first, and takes the V100.
  EXPECT_EQ(NodeOf(ja), "fast");
  EXPECT_EQ(NodeOf(jb), "slow");
  EXPECT_DOUBLE_EQ(ja.lease().service_weight(), 1.0);
  EXPECT_NEAR(jb.lease().service_weight(), k80_weight, 1e-12);

  // Both launch at 1 s (their nodes' first reports) and hold their GPUs for 10 s.
  ASSERT_EQ(Beat(*s, "fast", 500).launch_size(), 1);
  ASSERT_EQ(Beat(*s, "slow", 500).launch_size(), 1);
  const v1::RunningProcess pa = Running(a, ja.lease().epoch());
  const v1::RunningProcess pb = Running(b, jb.lease().epoch());
  for (int64_t t = 1000; t <= 11000; t += 1000) {
    Beat(*s, "fast", t, {pa});
    Beat(*s, "slow", t, {pb});
  }
  ASSERT_TRUE(s->Tick(11000).ok());
  EXPECT_EQ(s->GetJob(a)->attained_service_ms(), 10000);
  EXPECT_NEAR(s->GetJob(b)->attained_service_ms(), 10000 * k80_weight, 2);
  // The weight is stored with the lease.
  s.reset();
  s = Open();
  EXPECT_NEAR(s->GetJob(b)->lease().service_weight(), k80_weight, 1e-12);
}

// Which nodes take part changes from round to round (one lent for a
// profile, one drained); the units of service do not: a second on a K80
// is worth the same with or without a V100 node in the round.
TEST_F(DaemonGpuTypesTest, WithoutNodesOfTheBaseTypeServiceIsStillInItsUnits) {
  auto s = Open();
  AddNode(*s, "slow", 1, 12, 250, 0, "k80");
  const std::string id = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  const RoundSnapshot snap = s->SnapshotForRound(0);
  ASSERT_TRUE(snap.typed);
  ASSERT_EQ(snap.cluster.gpu_types(), std::vector<std::string>{"k80"});
  EXPECT_NEAR(ServiceWeight(snap.by_type, NumericJobId(id), 0), 0.086, 1e-9);
  ASSERT_TRUE(s->RunRound(0).ok());
  EXPECT_NEAR(s->GetJob(id)->lease().service_weight(), 0.086, 1e-9);
}

// A profile that reads nothing at the K80 node's share (3 CPUs: the job
// measured nothing below 4) gives the job no model there: it is scheduled
// at the share on both types, in one unit, not half measured and half not.
TEST_F(DaemonGpuTypesTest, AJobWithoutAModelOnSomeTypeIsScheduledAtTheShareOnEvery) {
  auto s = Open();
  AddNode(*s, "fast", 2, 12, 250, 0, "v100");  // share: 6 CPUs
  AddNode(*s, "slow", 2, 6, 250, 0, "k80");    // share: 3 CPUs
  v1::JobSpec spec = Spec(1, "", 1000);
  spec.set_uses_agent(true);
  for (double cpus : {4.0, 6.0, 12.0}) {
    v1::ProfilePoint* p = spec.add_profile_points();
    p->set_cpus(cpus);
    p->set_mem_gb(125);
    p->set_throughput(cpus);
  }
  const std::string id = *s->Submit(spec, "alice", 0);
  const RoundSnapshot snap = s->SnapshotForRound(0);
  ASSERT_TRUE(snap.typed);
  for (const JobView* on : snap.by_type.on_type.at(NumericJobId(id))) {
    EXPECT_TRUE(on->asks_for_share);
    EXPECT_EQ(on->iteration_time_s, snap.views[0].iteration_time_s);
  }
  EXPECT_TRUE(snap.views[0].asks_for_share);
  EXPECT_DOUBLE_EQ(ServiceWeight(snap.by_type, NumericJobId(id), 1), 1.0);
}

TEST_F(DaemonGpuTypesTest, AMeasuredProfileRecordsTheNodesTypeNotTheAgents) {
  auto s = Open();
  AddNode(*s, "slow", 1, 12, 250, 0, "k80");
  const std::string id = *s->Submit(Spec(1, "res18", 1000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  v1::MeasuredProfile profile = FlatProfile(id, s->GetJob(id)->lease().epoch(), 5);
  profile.set_gpu_type("v100");  // an agent's claim: not trusted
  ASSERT_TRUE(s->SubmitProfile(profile, 10).ok());
  const v1::Job job = *s->GetJob(id);
  EXPECT_EQ(job.measured_profile().gpu_type(), "k80");
  bool said = false;
  for (const v1::JobEvent& e : job.events()) said |= e.text().find("on k80") != std::string::npos;
  EXPECT_TRUE(said);
  s.reset();
  EXPECT_EQ(Open()->GetJob(id)->measured_profile().gpu_type(), "k80");
}

// A profile measured on a K80 is the job's profile there as measured; on a
// V100 it is carried by the ratio of the model's speeds (1 / 0.086), as far
// as the data pipeline keeps up (gpu_type_model.h).
TEST_F(DaemonGpuTypesTest, AProfileMeasuredOnOneTypeIsCarriedToTheOthers) {
  auto s = Open();
  AddNode(*s, "slow", 2, 12, 250, 0, "k80");  // share: 6 CPUs, 125 GB a GPU
  const std::string id = *s->Submit(Spec(1, "res18", 1000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_TRUE(s->SubmitProfile(FlatProfile(id, s->GetJob(id)->lease().epoch(), 5), 10).ok());
  AddNode(*s, "fast", 2, 12, 250, 0, "v100");
  const RoundSnapshot snap = s->SnapshotForRound(20);
  ASSERT_TRUE(snap.typed);
  ASSERT_EQ(snap.cluster.gpu_types(), (std::vector<std::string>{"v100", "k80"}));
  const std::vector<const JobView*>& on = snap.by_type.on_type.at(NumericJobId(id));
  ASSERT_EQ(on.size(), 2u);
  // On the K80, as measured: 5 iterations a second at the share.
  EXPECT_DOUBLE_EQ(on[1]->iteration_time_s, 1.0 / 5);
  EXPECT_DOUBLE_EQ(on[1]->ideal_speedup, 1.0);
  // On the V100, faster: the pipeline, hidden behind the K80 at every
  // measured point, is taken to grow with the CPUs from the first point
  // (2 CPUs): 3x at the 6-CPU share, below the GPU's 11.6x.
  EXPECT_NEAR(on[0]->iteration_time_s, 1.0 / 15, 1e-12);
  // Its ideal there is the whole node's 12 CPUs: 6x the K80's rate, 2x
  // its own at the share.
  EXPECT_NEAR(on[0]->ideal_speedup, 2.0, 1e-12);
  EXPECT_EQ(on[0]->ideal_demand.cpus, 12);
  // The view the policy orders is the V100's (the zoo's base type).
  EXPECT_EQ(snap.views[0].iteration_time_s, on[0]->iteration_time_s);
  EXPECT_NEAR(ServiceWeight(snap.by_type, NumericJobId(id), 1), 1.0 / 3, 1e-12);
}

// A job's type is fixed while it runs: the round keeps it on its node's
// type, and a node of the same capacity but another type is not "the
// same server" for keeping a job in place.
TEST_F(DaemonGpuTypesTest, RunningJobsStayOnTheirNodesAcrossRounds) {
  auto s = Open();
  AddNode(*s, "a", 1, 12, 250, 0, "k80");
  AddNode(*s, "b", 1, 12, 250, 0, "v100");
  const std::string id = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(NodeOf(*s->GetJob(id)), "b");  // the faster type
  const int64_t epoch = s->GetJob(id)->lease().epoch();
  ASSERT_EQ(Beat(*s, "b", 100).launch_size(), 1);
  v1::RunningProcess p;
  p.set_job_id(id);
  p.set_epoch(epoch);
  for (int64_t t = 1000; t <= 5000; t += 1000) {
    Beat(*s, "a", t);
    Beat(*s, "b", t, {p});
    ASSERT_TRUE(s->RunRound(t).ok());
    const v1::Job job = *s->GetJob(id);
    EXPECT_EQ(job.lease().epoch(), epoch) << "round at " << t;
  }
}

// A round's world with a V100 node and a K80 node (8 GPUs, 24 CPUs, 500
// GB each), and one res18 job.
RoundWorld TwoTypeWorld(bool v100_usable, bool k80_usable) {
  RoundWorld world;
  for (const auto& [name, type, usable] :
       {std::tuple{"fast", "v100", v100_usable}, std::tuple{"slow", "k80", k80_usable}}) {
    RoundNode n;
    n.name = name;
    n.usable = usable;
    for (int g = 0; g < 8; ++g) n.whole.add_gpu_ids(g);
    for (int c = 0; c < 24; ++c) n.whole.add_cpu_ids(c);
    n.whole.set_mem_gb(500);
    n.whole.set_gpu_type(type);
    n.capacity = n.whole;
    world.nodes.push_back(n);
  }
  RoundJob job;
  job.id = "j-000001";
  job.gpus = 1;
  job.uses_agent = true;
  job.model = "res18";
  job.iterations = 1000;
  world.queue.push_back(job);
  return world;
}

// The base type's units do not move with the nodes that take part: with the
// V100 node sitting a round out, a second on the K80 is worth what it was.
TEST(DaemonRoundTypes, TheBaseTypesUnitsHoldWhenItsNodesSitTheRoundOut) {
  const ModelZoo zoo = testing::ZooOrDie();
  const RoundSnapshot both = SnapshotOf(TwoTypeWorld(true, true), zoo);
  const RoundSnapshot k80_only = SnapshotOf(TwoTypeWorld(false, true), zoo);
  ASSERT_TRUE(both.typed && k80_only.typed);
  ASSERT_EQ(k80_only.cluster.gpu_types(), std::vector<std::string>{"k80"});
  EXPECT_DOUBLE_EQ(ServiceWeight(k80_only.by_type, 1, 0), ServiceWeight(both.by_type, 1, 1));
  EXPECT_DOUBLE_EQ(k80_only.views[0].iteration_time_s, both.views[0].iteration_time_s);
}

// A job whose lease is on a node that sits the round out carries what its
// lease was worth in the base type's units, typed round or not.
TEST(DaemonRoundTypes, ALeaseOnANodeSittingOutCarriesItsSpeedupInBaseUnits) {
  const ModelZoo zoo = testing::ZooOrDie();
  for (bool typed_round : {true, false}) {
    // Untyped: only the V100 takes part; typed: a P100 joins it.
    RoundWorld world = TwoTypeWorld(true, false);
    if (typed_round) {
      RoundNode p100 = world.nodes[0];
      p100.name = "mid";
      p100.whole.set_gpu_type("p100");
      p100.capacity = p100.whole;
      world.nodes.push_back(p100);
    }
    RoundJob& job = world.queue[0];
    job.holds_lease = true;
    job.running = true;
    job.lease_node = "slow";
    job.lease_speedup = 1.2;
    job.lease_service_weight = 0.25;
    const RoundSnapshot snap = SnapshotOf(world, zoo);
    ASSERT_EQ(snap.typed, typed_round);
    ASSERT_EQ(snap.views.size(), 1u);
    EXPECT_DOUBLE_EQ(snap.views[0].last_round_speedup, 1.2 * 0.25) << (typed_round ? "typed" : "untyped");
  }
}

// A job the round would place on a faster type ends its lease there for it
// (a restart worth its gain, lease_fate.h): once the V100 frees, the job on
// the K80 moves to it, while on one type a move alone never restarts a job.
TEST_F(DaemonGpuTypesTest, AJobOnASlowTypeMovesWhenAFasterOneFrees) {
  auto s = Open();
  AddNode(*s, "fast", 1, 12, 250, 0, "v100");
  AddNode(*s, "slow", 1, 12, 250, 0, "k80");
  const std::string a = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  const std::string b = *s->Submit(Spec(1, "res18", 100000), "alice", 0);
  ASSERT_TRUE(s->RunRound(0).ok());
  ASSERT_EQ(NodeOf(*s->GetJob(b)), "slow");
  const int64_t epoch = s->GetJob(b)->lease().epoch();
  Beat(*s, "fast", 100);
  ASSERT_EQ(Beat(*s, "slow", 100).launch_size(), 1);
  v1::RunningProcess p;
  p.set_job_id(b);
  p.set_epoch(epoch);
  Beat(*s, "slow", 1000, {p});
  ASSERT_TRUE(s->Cancel(a, 1000).ok());
  Beat(*s, "fast", 1500, {}, {Exit(a, s->GetJob(a)->lease().epoch(), 143)});
  Beat(*s, "slow", 1500, {p});
  ASSERT_TRUE(s->RunRound(2000).ok());
  // Its K80 lease ends for the V100 and, its GPU planned for no one else,
  // the same round grants it the V100 (launched once the K80 process exits).
  const v1::Job moved = *s->GetJob(b);
  ASSERT_TRUE(moved.has_lease());
  EXPECT_GT(moved.lease().epoch(), epoch);
  EXPECT_EQ(NodeOf(moved), "fast");
  EXPECT_DOUBLE_EQ(moved.lease().service_weight(), 1.0);
  bool said = false;
  for (const v1::JobEvent& e : moved.events()) said |= e.text().find("a faster GPU type") != std::string::npos;
  EXPECT_TRUE(said);
}

// A job runs on nodes of one type: on nodes of several, one larger than
// the largest type's GPUs would wait forever, so it is refused.
TEST_F(DaemonGpuTypesTest, AJobLargerThanEveryTypeIsRefusedAtSubmit) {
  auto s = Open();
  AddNode(*s, "fast", 4, 24, 500, 0, "v100");
  AddNode(*s, "slow", 2, 12, 250, 0, "k80");
  auto refused = s->Submit(Spec(5, "res18", 100), "alice", 0);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "spec.gpus: 5 is more than the largest GPU type's (v100; a job runs on one type) 4 GPUs"),
            std::string::npos)
      << refused.status();
  EXPECT_TRUE(s->Submit(Spec(4, "res18", 100), "alice", 0).ok());
}

TEST_F(DaemonGpuTypesTest, AnUnknownTypeChoiceIsRefusedAtStart) {
  config_.type_choice = "fastest";
  auto store = SqliteStore::Open(config_.state_db);
  ASSERT_TRUE(store.ok());
  auto s = DaemonState::Open(config_, std::move(*store), testing::ZooOrDie(), 0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("type_choice"), std::string::npos);
}

}  // namespace
}  // namespace synergy::daemon
