// One core, two drivers, over many rounds: the simulator keeps its jobs as
// JobViews it updates itself; synergyd rebuilds each round's views from its
// records (a RoundJob per job, the lease the last round granted) through
// SnapshotOf. Given the same history, round after round, the daemon's views
// must be the simulator's and plan the same, under every policy and every
// mechanism (OPT included: its budget is counted in work, not time).
#include <map>
#include <vector>

#include "daemon/round_input.h"
#include "daemon/round_planner.h"
#include "gtest/gtest.h"
#include "sim/simulator.h"
#include "test_support.h"

namespace synergy::daemon {
namespace {

struct SimRound {
  std::vector<JobView> views;  // queue order, as the simulator offered them
  RoundResult result;          // pointers into the simulator's views: use only `plan`
  std::vector<JobId> order;
};

// A workload with queueing: 40 jobs of every task and size arriving faster
// than 16 GPUs serve them.
std::vector<sim::JobSpec> Trace(const ModelZoo& zoo) {
  const std::vector<std::string> models = {"res18", "gnmt", "alexnet", "transformer", "mobilenet",
                                           "lstm", "m5", "res50", "shufflenet", "deepspeech"};
  const std::vector<int> gpus = {1, 2, 1, 4, 1, 8, 1, 2, 1, 1, 4, 1, 2};
  std::vector<sim::JobSpec> trace;
  for (int i = 0; i < 40; ++i) {
    sim::JobSpec j;
    j.id = i + 1;
    j.model = zoo.Find(models[i % models.size()]);
    EXPECT_GE(j.model, 0) << models[i % models.size()];
    j.gpus = gpus[i % gpus.size()];
    j.iterations = 2000 + 700 * (i % 7);
    j.arrival_s = 100.0 * i;
    trace.push_back(j);
  }
  return trace;
}

// What synergyd's records say of a job the simulator offered in a round:
// its spec, progress and service as stored, and the lease the previous
// round granted it (Grant records the assignment's speedup and whether it
// was the ideal demand).
RoundJob RecordOf(const JobView& v, const std::string& model, const Assignment* last_round) {
  RoundJob r;
  r.id = JobIdString(v.id);
  r.gpus = v.gpus;
  r.uses_agent = true;
  r.model = model;
  r.submitted_unix_ms = static_cast<int64_t>(v.arrival_s * 1000);
  r.iterations = static_cast<int64_t>(v.total_iterations);
  r.iterations_done = static_cast<int64_t>(v.total_iterations - v.remaining_iterations);
  r.attained_service_ms = static_cast<int64_t>(v.attained_service_s * 1000);
  r.last_lease_end_unix_ms = v.last_execution_end_s >= 0 ? static_cast<int64_t>(v.last_execution_end_s * 1000) : 0;
  r.starvation_priority = v.priority;
  r.holds_lease = last_round != nullptr;
  if (last_round != nullptr) {
    r.lease_speedup = last_round->speedup;
    r.lease_at_ideal = last_round->at_ideal;
    r.running = true;
  }
  return r;
}

TEST(DriverEquivalence, TheDaemonsViewsPlanAsTheSimulatorsRoundAfterRound) {
  const ModelZoo zoo = testing::ZooOrDie();
  // Storage 0: synergyd does not track it.
  const Cluster cluster = testing::Homogeneous(2, 8, 24, 500, 0);
  const std::vector<sim::JobSpec> trace = Trace(zoo);
  RoundWorld world_nodes;
  for (int s = 0; s < cluster.num_servers(); ++s) {
    RoundNode n;
    n.name = cluster.servers()[s].name;
    n.usable = true;
    for (int g = 0; g < 8; ++g) n.capacity.add_gpu_ids(g);
    for (int c = 0; c < 24; ++c) n.capacity.add_cpu_ids(c);
    n.capacity.set_mem_gb(500);
    world_nodes.nodes.push_back(n);
  }
  for (const std::string policy_name : PolicyNames()) {
    for (const std::string mechanism_name : MechanismNames()) {
      const std::string label = policy_name + "/" + mechanism_name;
      auto policy = *MakePolicy(policy_name);
      auto mechanism = *MakeMechanism(mechanism_name);
      std::vector<SimRound> rounds;
      sim::SimConfig sc;
      sc.cluster = &cluster;
      sc.zoo = &zoo;
      sc.policy = policy.get();
      sc.mechanism = mechanism.get();
      sc.on_round = [&](const RoundInput& in, const RoundResult& r) {
        SimRound round;
        for (const JobView* v : in.queue) round.views.push_back(*v);
        round.result.plan = r.plan;
        for (const JobView* v : r.order) round.order.push_back(v->id);
        rounds.push_back(std::move(round));
      };
      ASSERT_TRUE(sim::RunTrace(sc, trace).ok()) << label;
      ASSERT_GT(rounds.size(), 20u) << label;

      int compared = 0;
      for (size_t k = 1; k < rounds.size(); ++k) {
        const SimRound& round = rounds[k];
        const Plan& last = rounds[k - 1].result.plan;
        RoundWorld world = world_nodes;
        world.now_ms = static_cast<int64_t>(300000 * k);
        for (const JobView& v : round.views) {
          world.queue.push_back(RecordOf(v, zoo.model(trace[v.id - 1].model).name, last.Find(v.id)));
        }
        RoundSnapshot snap = SnapshotOf(world, zoo);
        ASSERT_EQ(snap.views.size(), round.views.size()) << label << " round " << k;
        for (size_t i = 0; i < snap.views.size(); ++i) {
          JobView& d = snap.views[i];
          const JobView& s = round.views[i];
          const std::string where = label + " round " + std::to_string(k) + " job " + std::to_string(s.id);
          ASSERT_EQ(d.id, s.id) << where;
          EXPECT_EQ(d.gpus, s.gpus) << where;
          EXPECT_EQ(d.arrival_s, s.arrival_s) << where;
          EXPECT_EQ(d.ideal_demand, s.ideal_demand) << where;
          EXPECT_EQ(d.ideal_speedup, s.ideal_speedup) << where;
          EXPECT_EQ(d.asks_for_share, s.asks_for_share) << where;
          EXPECT_EQ(d.iteration_time_s, s.iteration_time_s) << where;
          EXPECT_EQ(d.placement_penalty, s.placement_penalty) << where;
          EXPECT_EQ(d.total_iterations, s.total_iterations) << where;
          EXPECT_EQ(d.attained_service_s, s.attained_service_s) << where;
          EXPECT_EQ(d.priority, s.priority) << where;
          EXPECT_EQ(d.last_round_speedup, s.last_round_speedup) << where;
          EXPECT_EQ(d.last_execution_end_s, s.last_execution_end_s) << where;
          EXPECT_EQ(d.profile != nullptr, s.profile != nullptr) << where;
          // The daemon counts whole iterations (agents report them); the
          // simulator books fractions. The rest of the comparison takes
          // the simulator's.
          EXPECT_NEAR(d.remaining_iterations, s.remaining_iterations, 1.0) << where;
          d.remaining_iterations = s.remaining_iterations;
        }
        RoundInput in;
        in.now_s = world.now_ms / 1000.0;
        in.cluster = &snap.cluster;
        for (const JobView& v : snap.views) in.queue.push_back(&v);
        const RoundResult daemon = ScheduleRound(in, *policy, *mechanism);
        const std::string where = label + " round " + std::to_string(k);
        ASSERT_EQ(daemon.order.size(), round.order.size()) << where;
        for (size_t i = 0; i < daemon.order.size(); ++i) EXPECT_EQ(daemon.order[i]->id, round.order[i]) << where;
        testing::ExpectSamePlan(daemon.plan, round.result.plan, where);
        ++compared;
        if (::testing::Test::HasFailure()) return;  // one divergence is enough to read
      }
      EXPECT_GT(compared, 20) << label;
    }
  }
}

}  // namespace
}  // namespace synergy::daemon
