// The standing queue (synergy/standing_queue.h) against the sorted round
// (synergy/round.h) it stands in for: the same plans and the same starved
// jobs, round after round, on queues full of ties (equal arrivals, equal
// service, equal remaining work), with jobs added, finished, run and bumped
// between rounds; and the simulator giving the same results either way.
#include "synergy/standing_queue.h"

#include <algorithm>
#include <deque>
#include <random>
#include <set>

#include "gtest/gtest.h"
#include "sim/simulator.h"
#include "sim/workload.h"
#include "synergy/round.h"
#include "test_support.h"

namespace synergy {
namespace {

using testing::ExpectSamePlan;

std::vector<JobId> Ids(const std::vector<const JobView*>& jobs) {
  std::vector<JobId> ids;
  for (const JobView* j : jobs) ids.push_back(j->id);
  return ids;
}

// Drives both rounds over the same jobs; every change to a view is told to
// the standing queue, and the sorted one gets the previous order plus the
// jobs added, as the simulator's queue.
class TwoRounds {
 public:
  TwoRounds(const Cluster& cluster, const ModelZoo& zoo, const Policy& policy, const Mechanism& mechanism,
            uint64_t seed)
      : cluster_(cluster), zoo_(zoo), policy_(policy), mechanism_(mechanism), standing_(policy, mechanism, false),
        rng_(seed) {}

  void Add(int count, double now_s) {
    static const char* kModels[] = {"res18", "alexnet", "gnmt", "transformer", "deepspeech"};
    static const int kGpus[] = {1, 1, 1, 2, 4, 8};
    for (int i = 0; i < count; ++i) {
      // Few distinct arrivals and iteration counts: many equal keys.
      const double arrival = now_s - 300.0 * Pick(3);
      JobView& job = jobs_.emplace_back(testing::MakeJob(zoo_, cluster_, next_id_++, kModels[Pick(5)],
                                                         kGpus[Pick(6)], arrival, 1000.0 * (1 + Pick(3))));
      job.last_round_speedup = 1;
      if (Pick(10) == 0) job.priority_class = 1;
      standing_.Add(&job);
      sorted_.push_back(&job);
    }
  }

  // One round at `now_s` both ways; the results must agree. Then the jobs
  // placed progress, some finish, some are bumped, and ran-before ones go
  // back to speedup 1, as in the simulator.
  void Round(double now_s, const std::string& where) {
    RoundInput input;
    input.now_s = now_s;
    input.cluster = &cluster_;
    input.queue = sorted_;
    const RoundResult want = ScheduleRound(input, policy_, mechanism_);
    const RoundResult got = ScheduleStandingRound(standing_, now_s, cluster_, GpuPlacement::kConsolidate);
    ExpectSamePlan(got.plan, want.plan, where);
    EXPECT_EQ(Ids(got.bumped), Ids(want.bumped)) << where;
    EXPECT_EQ(Ids(standing_.InOrder()), Ids(want.order)) << where;
    if (!want.order.empty()) EXPECT_EQ(standing_.Front(), want.order.front()) << where;
    ++rounds_;
    placed_total_ += static_cast<int>(want.plan.assignments.size());
    bumped_total_ += static_cast<int>(want.bumped.size());

    sorted_ = want.order;
    for (const JobView* v : want.bumped) {
      Mutable(v).priority = 1;
      standing_.Touch(v);
    }
    for (JobView* v : ran_before_) {
      v->last_round_speedup = 1;
      standing_.Touch(v);
    }
    ran_before_.clear();
    std::set<const JobView*> finished;
    for (const Assignment& a : want.plan.assignments) {
      JobView& v = Find(a.job);
      v.attained_service_s += 300;
      // Progress in whole steps, so that remaining work ties across jobs.
      v.remaining_iterations = std::max(0.0, v.remaining_iterations - 500.0 * (1 + Pick(2)));
      v.last_round_speedup = a.speedup;
      v.last_execution_end_s = now_s + 300;
      standing_.Touch(&v);
      if (v.remaining_iterations == 0) {
        finished.insert(&v);
      } else {
        ran_before_.push_back(&v);
      }
    }
    for (const JobView* v : finished) standing_.Remove(v);
    std::erase_if(sorted_, [&](const JobView* v) { return finished.count(v) > 0; });
    EXPECT_EQ(standing_.size(), sorted_.size()) << where;
  }

  int rounds() const { return rounds_; }
  int placed_total() const { return placed_total_; }
  int bumped_total() const { return bumped_total_; }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  JobView& Mutable(const JobView* v) { return const_cast<JobView&>(*v); }
  JobView& Find(JobId id) {
    for (JobView& j : jobs_) {
      if (j.id == id) return j;
    }
    ADD_FAILURE() << "no job " << id;
    return jobs_.front();
  }

  const Cluster& cluster_;
  const ModelZoo& zoo_;
  const Policy& policy_;
  const Mechanism& mechanism_;
  StandingQueue standing_;
  std::mt19937_64 rng_;
  std::deque<JobView> jobs_;  // stable addresses
  std::vector<const JobView*> sorted_;
  std::vector<JobView*> ran_before_;
  JobId next_id_ = 0;
  int rounds_ = 0;
  int placed_total_ = 0;
  int bumped_total_ = 0;
};

TEST(StandingQueueTest, GivesTheSortedRoundsPlansAndBumpsRoundAfterRound) {
  const Cluster cluster = testing::Homogeneous(4, 8, 24, 500);
  const ModelZoo zoo = testing::ZooOrDie();
  for (const char* policy_name : {"fifo", "srtf", "las"}) {
    for (const char* mechanism_name : {"proportional", "greedy", "tune", "tune-graded", "opt"}) {
      auto policy = *MakePolicy(policy_name);
      auto mechanism = *MakeMechanism(mechanism_name);
      TwoRounds rounds(cluster, zoo, *policy, *mechanism, 7);
      double now = 0;
      rounds.Add(60, now);
      for (int r = 0; r < 40; ++r) {
        rounds.Round(now, std::string(policy_name) + "/" + mechanism_name + " round " + std::to_string(r));
        if (::testing::Test::HasFatalFailure()) return;
        rounds.Add(r % 3 == 0 ? 4 : 1, now);
        // Now and then a jump past the starvation limit, so that waiting
        // jobs are bumped; and one just short of it, so that jobs whose
        // wait was last seen long ago but ran since are not.
        now += r % 13 == 12 ? kStarvationLimitS + 600 : r % 13 == 6 ? kStarvationLimitS - 150 : 300;
      }
      EXPECT_GT(rounds.placed_total(), 100) << policy_name << "/" << mechanism_name;
      EXPECT_GT(rounds.bumped_total(), 0) << policy_name << "/" << mechanism_name;
    }
  }
}

TEST(StandingQueueTest, FtfCannotStandItsKeyMovesWithTime) {
  EXPECT_TRUE((*MakePolicy("ftf"))->key_moves_with_time());
  for (const char* name : {"fifo", "srtf", "las"}) EXPECT_FALSE((*MakePolicy(name))->key_moves_with_time()) << name;
}

TEST(StandingQueueTest, AJobAddedAndRemovedBeforeAnyRoundLeavesNoTrace) {
  const Cluster cluster = testing::Homogeneous(1, 8, 24, 500);
  const ModelZoo zoo = testing::ZooOrDie();
  auto policy = *MakePolicy("las");
  auto mechanism = *MakeMechanism("tune");
  StandingQueue queue(*policy, *mechanism, false);
  JobView a = testing::MakeJob(zoo, cluster, 1, "res18", 1);
  JobView b = testing::MakeJob(zoo, cluster, 2, "res18", 1);
  queue.Add(&a);
  queue.Add(&b);
  queue.Touch(&a);
  queue.Remove(&a);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.Front(), &b);
  const RoundResult r = ScheduleStandingRound(queue, 0, cluster, GpuPlacement::kConsolidate);
  ASSERT_EQ(r.plan.assignments.size(), 1u);
  EXPECT_EQ(r.plan.assignments[0].job, 2);
}

// A replay of `trace` on the standing queue or on sorted rounds.
sim::SimResult Replay(const Cluster& cluster, const ModelZoo& zoo, const Policy& policy, const Mechanism& mechanism,
                      bool reference, bool standing, const std::vector<sim::JobSpec>& trace) {
  sim::SimConfig c;
  c.cluster = &cluster;
  c.zoo = &zoo;
  c.policy = &policy;
  c.mechanism = &mechanism;
  c.reference_compatible = reference;
  c.standing_queue = standing;
  auto r = sim::RunTrace(c, trace);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : sim::SimResult{};
}

// The simulator with and without the standing queue: the same records and
// the same utilisation, round for round, on a cluster saturated by a
// replay (which then drains).
TEST(StandingQueueTest, TheSimulatorGivesTheSameResultsEitherWay) {
  const Cluster cluster = testing::DefaultClusterOrDie();
  const ModelZoo zoo = testing::ZooOrDie();
  std::vector<sim::JobSpec> trace;
  sim::GeneratorConfig load;
  load.load_jobs_per_hour = 12;
  sim::WorkloadGenerator gen(load, zoo);
  for (int i = 0; i < 300; ++i) trace.push_back(gen.Next());
  for (const char* policy_name : {"fifo", "srtf", "las"}) {
    for (const char* mechanism_name : {"proportional", "tune"}) {
      for (bool reference : {true, false}) {
        auto policy = *MakePolicy(policy_name);
        auto mechanism = *MakeMechanism(mechanism_name);
        const std::string where = std::string(policy_name) + "/" + mechanism_name + (reference ? " ref" : "");
        const sim::SimResult want = Replay(cluster, zoo, *policy, *mechanism, reference, false, trace);
        const sim::SimResult got = Replay(cluster, zoo, *policy, *mechanism, reference, true, trace);
        ASSERT_EQ(got.jobs.size(), want.jobs.size()) << where;
        for (size_t i = 0; i < want.jobs.size(); ++i) {
          EXPECT_EQ(got.jobs[i].spec.id, want.jobs[i].spec.id) << where;
          EXPECT_EQ(got.jobs[i].start_s, want.jobs[i].start_s) << where << " job " << want.jobs[i].spec.id;
          EXPECT_EQ(got.jobs[i].finish_s, want.jobs[i].finish_s) << where << " job " << want.jobs[i].spec.id;
        }
        ASSERT_EQ(got.rounds.size(), want.rounds.size()) << where;
        for (size_t i = 0; i < want.rounds.size(); ++i) {
          EXPECT_EQ(got.rounds[i].allocated, want.rounds[i].allocated) << where << " round " << i;
          EXPECT_EQ(got.rounds[i].throughput, want.rounds[i].throughput) << where << " round " << i;
          EXPECT_EQ(got.rounds[i].queued, want.rounds[i].queued) << where << " round " << i;
        }
        EXPECT_EQ(got.end_s, want.end_s) << where;
      }
    }
  }
}

// A long job under SRTF waits behind a stream of short ones until the
// starvation guard bumps it, 1000 hours on: the simulator's bump, its touch
// and the job's run after it are the same either way.
TEST(StandingQueueTest, TheSimulatorBumpsAStarvedJobTheSameEitherWay) {
  const Cluster cluster = testing::Homogeneous(1, 1, 3, 62.5);
  const ModelZoo zoo = testing::ZooOrDie();
  const int res18 = zoo.Find("res18");
  std::vector<sim::JobSpec> trace;
  trace.push_back(sim::JobSpec{0, res18, 0, 5000, 1});  // about 11 rounds at 0.64 s an iteration
  const int shorts = static_cast<int>(kStarvationLimitS / 300) + 400;
  for (int i = 1; i <= shorts; ++i) trace.push_back(sim::JobSpec{i, res18, 300.0 * (i - 1), 100, 1});
  for (const char* mechanism_name : {"proportional", "tune"}) {
    for (bool reference : {true, false}) {
      auto policy = *MakePolicy("srtf");
      auto mechanism = *MakeMechanism(mechanism_name);
      const std::string where = std::string(mechanism_name) + (reference ? " ref" : "");
      const sim::SimResult want = Replay(cluster, zoo, *policy, *mechanism, reference, false, trace);
      const sim::SimResult got = Replay(cluster, zoo, *policy, *mechanism, reference, true, trace);
      ASSERT_EQ(got.jobs.size(), want.jobs.size()) << where;
      // Bumped: it started after the limit and finished before the stream.
      ASSERT_GT(want.jobs[0].start_s, kStarvationLimitS) << where;
      ASSERT_GT(want.jobs[0].finish_s, 0) << where;
      ASSERT_LT(want.jobs[0].finish_s, trace.back().arrival_s) << where;
      for (size_t i = 0; i < want.jobs.size(); ++i) {
        ASSERT_EQ(got.jobs[i].start_s, want.jobs[i].start_s) << where << " job " << i;
        ASSERT_EQ(got.jobs[i].finish_s, want.jobs[i].finish_s) << where << " job " << i;
      }
      EXPECT_EQ(got.end_s, want.end_s) << where;
    }
  }
}

}  // namespace
}  // namespace synergy
