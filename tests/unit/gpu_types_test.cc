// GPU types: the profile on another type (gpu_type_model.h), the cluster's
// and zoo's type fields, and the typed round (typed_round.h) over
// randomised heterogeneous clusters.
#include <algorithm>
#include <deque>
#include <map>
#include <random>
#include <unordered_map>

#include "gtest/gtest.h"
#include "synergy/config_loader.h"
#include "synergy/gpu_type_model.h"
#include "synergy/mechanism.h"
#include "synergy/typed_round.h"
#include "test_support.h"

namespace synergy {
namespace {

// cpus [1, 2, 4, 8] x memory [10, 20]; the pipeline doubles from 1 to 2
// CPUs and the GPU caps it at 1.5 from 4 CPUs on.
ModelSpec SmallModel() {
  ModelSpec m;
  m.name = "small";
  m.iteration_time_s = 2.0;
  m.profile = SensitivityProfile({1, 2, 4, 8}, {10, 20}, {{0.5, 0.5}, {1, 1}, {1.5, 1.5}, {1.5, 1.5}},
                                 Resources{1, 4, 10, 0}, 1.5);
  return m;
}

TEST(GpuTypeModel, TheBaseTypeAtItsShareIsTheProfileUnchanged) {
  const ModelSpec base = SmallModel();
  const ModelSpec same = *ModelOnGpuType(base, 1.0, Resources{1, 2, 10, 0});
  EXPECT_EQ(same.profile.throughput(), base.profile.throughput());
  EXPECT_EQ(same.profile.ideal_per_gpu(), base.profile.ideal_per_gpu());
  EXPECT_EQ(same.iteration_time_s, base.iteration_time_s);
  // The model itself at speed 1 is the profile, whatever the share.
  EXPECT_EQ(RatesOnGpuType(base.profile, 1.0), base.profile.throughput());
  // At a share where the profile reads 1.5 (4 CPUs), speed 1 normalises to it.
  const ModelSpec richer = *ModelOnGpuType(base, 1.0, Resources{1, 4, 10, 0});
  EXPECT_DOUBLE_EQ(richer.profile.ThroughputAt(4, 10), 1.0);
  EXPECT_DOUBLE_EQ(richer.profile.ThroughputAt(2, 10), 1.0 / 1.5);
  EXPECT_DOUBLE_EQ(richer.iteration_time_s, 2.0 / 1.5);
}

TEST(GpuTypeModel, AProfileThatGivesNothingAtTheShareIsRefusedNamingTheModel) {
  ModelSpec m = SmallModel();
  m.profile = SensitivityProfile({1, 2}, {10}, {{0}, {0}}, Resources{1, 1, 10, 0}, 0);
  const absl::StatusOr<ModelSpec> typed = ModelOnGpuType(m, 0.5, Resources{1, 2, 10, 0});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("model 'small'"), std::string::npos) << typed.status();
}

TEST(GpuTypeModel, ASlowerTypeCapsThePipelineAndItsKneeMovesDown) {
  const ModelSpec base = SmallModel();
  // Half as fast: the GPU gives 0.75, which the pipeline reaches at 2 CPUs
  // (1.0 there, capped).
  const ModelSpec slow = *ModelOnGpuType(base, 0.5, Resources{1, 2, 10, 0});
  const std::vector<std::vector<double>> rates = RatesOnGpuType(base.profile, 0.5);
  EXPECT_DOUBLE_EQ(rates[0][0], 0.5);
  EXPECT_DOUBLE_EQ(rates[1][0], 0.75);
  EXPECT_DOUBLE_EQ(rates[3][1], 0.75);
  // Normalised to its share (2 CPUs: 0.75): flat from 2 CPUs, ideal there.
  EXPECT_DOUBLE_EQ(slow.profile.ThroughputAt(2, 10), 1.0);
  EXPECT_DOUBLE_EQ(slow.profile.ThroughputAt(1, 10), 0.5 / 0.75);
  EXPECT_DOUBLE_EQ(slow.profile.ideal_speedup(), 1.0);
  EXPECT_EQ(slow.profile.ideal_per_gpu(), (Resources{1, 2, 10, 0}));
  // Its iteration at the share takes the base's over 0.75.
  EXPECT_DOUBLE_EQ(slow.iteration_time_s, 2.0 / 0.75);
}

TEST(GpuTypeModel, AFasterTypeNeedsMoreCpusToBeFed) {
  const ModelSpec base = SmallModel();
  // Twice as fast: the GPU gives 3; the pipeline, hidden from 4 CPUs on,
  // grows from 1.0 at 2 CPUs in proportion: 2 at 4, 4 at 8 (capped to 3).
  const std::vector<std::vector<double>> rates = RatesOnGpuType(base.profile, 2.0);
  EXPECT_DOUBLE_EQ(rates[2][0], 2.0);
  EXPECT_DOUBLE_EQ(rates[3][0], 3.0);
  const ModelSpec fast = *ModelOnGpuType(base, 2.0, Resources{1, 2, 10, 0});
  EXPECT_EQ(fast.profile.ideal_per_gpu(), (Resources{1, 8, 10, 0}));
  EXPECT_DOUBLE_EQ(fast.profile.ideal_speedup(), 3.0);  // over 1.0 at its share
  EXPECT_DOUBLE_EQ(fast.iteration_time_s, 2.0);
}

TEST(GpuTypeModel, OnEveryZooModelASlowerTypeNeverBeatsTheBaseAndKeepsItsOrder) {
  const ModelZoo zoo = testing::ZooOrDie();
  for (const ModelSpec& m : zoo.models()) {
    for (double speed : {0.086, 0.5, 0.9}) {
      const auto rates = RatesOnGpuType(m.profile, speed);
      const auto& seen = m.profile.throughput();
      double plateau = m.profile.ideal_speedup();
      for (const auto& row : seen) plateau = std::max(plateau, *std::max_element(row.begin(), row.end()));
      for (size_t i = 0; i < rates.size(); ++i) {
        for (size_t k = 0; k < rates[i].size(); ++k) {
          EXPECT_LE(rates[i][k], seen[i][k]) << m.name << " " << speed;
          EXPECT_LE(rates[i][k], speed * plateau + 1e-12) << m.name;
          if (i > 0) EXPECT_GE(rates[i][k], rates[i - 1][k]) << m.name << ": more CPUs, no slower";
        }
      }
      const ModelSpec typed = *ModelOnGpuType(m, speed, Resources{1, 3, 62.5, 0});
      EXPECT_GE(typed.profile.ideal_speedup(), 1.0) << m.name;
      EXPECT_LE(typed.profile.ideal_per_gpu().cpus, m.profile.ideal_per_gpu().cpus) << m.name;
      // Slower or as fast at the share (alexnet at 3 CPUs is fed at 1.0 on
      // anything faster than a third of a V100).
      EXPECT_GE(typed.iteration_time_s, m.iteration_time_s) << m.name;
      EXPECT_DOUBLE_EQ(typed.profile.SpeedupAt(3, 62.5), 1.0) << m.name;
    }
  }
}

TEST(GpuTypeConfig, TheDefaultZooKnowsV100P100AndK80) {
  const ModelZoo zoo = testing::ZooOrDie();
  EXPECT_EQ(zoo.base_gpu_type(), "v100");
  const int res18 = zoo.Find("res18");
  EXPECT_EQ(zoo.GpuSpeed(res18, "v100"), 1.0);
  EXPECT_EQ(zoo.GpuSpeed(res18, ""), 1.0);
  EXPECT_EQ(zoo.GpuSpeed(res18, "p100"), 0.75);
  EXPECT_EQ(zoo.GpuSpeed(res18, "k80"), 0.086);
  EXPECT_EQ(zoo.GpuSpeed(res18, "a100"), std::nullopt);
}

TEST(GpuTypeConfig, ClusterServersNameTheirType) {
  auto c = ParseCluster(
      "servers:\n"
      "  - {name: v, count: 2, gpus: 8, cpus: 24, memory_gb: 500, gpu_type: v100}\n"
      "  - {name: k, count: 1, gpus: 4, cpus: 24, memory_gb: 256, gpu_type: k80}\n"
      "  - {name: x, gpus: 4, cpus: 12, memory_gb: 250}\n",
      "c.yaml");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->gpu_types(), (std::vector<std::string>{"v100", "k80", ""}));
  EXPECT_EQ(c->gpu_type_of(1), 0);
  EXPECT_EQ(c->gpu_type_of(2), 1);
  EXPECT_EQ(c->gpu_type_of(3), 2);
  EXPECT_TRUE(c->heterogeneous());
  const ServersOfType k80 = ServersOfGpuType(*c, 1);
  EXPECT_EQ(k80.servers_of, std::vector<int>{2});
  EXPECT_EQ(k80.cluster.share_per_gpu(), (Resources{1, 6, 64, 0}));
}

TEST(GpuTypeConfig, BadTypesAndSpeedsAreRefusedNamingTheField) {
  auto bad_type = ParseCluster("servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpu_type: 'V 100'}\n", "c.yaml");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("c.yaml:2: servers[0].gpu_type"), std::string::npos)
      << bad_type.status();
  const std::string model =
      "cpu_points: [1]\nmemory_points_gb: [10]\nmodels:\n"
      "  - {name: m, task: image, ideal: {cpus: 1, memory_gb: 10}, speedup: 1, iteration_time_s: 1, "
      "throughput: [[1]], gpu_speed: ";
  for (const std::string& speeds : {"{k80: -1}", "{k80: 0}", "{K80: 0.5}", "{k80: nan}", "[0.5]", "{k80: 1e9}"}) {
    auto zoo = ParseModelZoo(model + speeds + "}\n", "z.yaml");
    ASSERT_FALSE(zoo.ok()) << speeds;
    EXPECT_NE(zoo.status().message().find("models[0].gpu_speed"), std::string::npos) << zoo.status();
  }
  auto good = ParseModelZoo(model + "{k80: 0.25, a100-80gb: 2}}\ngpu_type: v100\n", "z.yaml");
  ASSERT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(good->GpuSpeed(0, "a100-80gb"), 2.0);
  EXPECT_FALSE(ParseModelZoo(model + "{}}\ngpu_type: ''\n", "z.yaml").ok());
}

// ---- the typed round -------------------------------------------------------

struct TypedCase {
  Cluster cluster;
  std::vector<ModelSpec> typed;        // [model * types + type]
  std::deque<JobView> views;           // per job: its views on each type, then its ordering view
  std::unordered_map<JobId, std::vector<const JobView*>> on_type;
  std::vector<const JobView*> queue;
};

const std::vector<std::string> kTypes = {"v100", "p100", "k80"};

TypedCase RandomTypedCase(std::mt19937& rng, const ModelZoo& zoo) {
  // A type is a server model: its servers are alike, and each type has
  // its own shape.
  std::vector<Resources> shapes;
  for (size_t t = 0; t < kTypes.size(); ++t) {
    const int gpus = std::vector<int>{2, 4, 8}[rng() % 3];
    const double cpus = gpus * std::vector<double>{2, 3, 4}[rng() % 3];
    const double mem = gpus * std::vector<double>{31.25, 62.5}[rng() % 2];
    shapes.push_back(Resources{gpus, cpus, mem, gpus * 62.5});
  }
  std::vector<ServerSpec> servers;
  const int n = std::uniform_int_distribution<int>(2, 9)(rng);
  for (int i = 0; i < n; ++i) {
    servers.push_back(ServerSpec{"s" + std::to_string(i), shapes[i % 3], {}, kTypes[i % 3]});
  }
  TypedCase c{Cluster(std::move(servers)), {}, {}, {}, {}};
  const int types = static_cast<int>(c.cluster.gpu_types().size());
  std::vector<ServersOfType> parts;
  for (int t = 0; t < types; ++t) parts.push_back(ServersOfGpuType(c.cluster, t));
  c.typed.reserve(zoo.models().size() * types);
  for (int m = 0; m < static_cast<int>(zoo.models().size()); ++m) {
    for (int t = 0; t < types; ++t) {
      const double speed = *zoo.GpuSpeed(m, c.cluster.gpu_types()[t]);
      c.typed.push_back(*ModelOnGpuType(zoo.model(m), speed, parts[t].cluster.share_per_gpu()));
    }
  }
  int largest = 0;
  for (const ServersOfType& p : parts) largest = std::max(largest, p.cluster.total().gpus);
  const int jobs = std::uniform_int_distribution<int>(1, 2 * c.cluster.total().gpus)(rng);
  for (int j = 0; j < jobs; ++j) {
    const int model = static_cast<int>(rng() % zoo.models().size());
    const int gpus = std::min(largest, std::vector<int>{1, 1, 1, 2, 4}[rng() % 5]);
    std::vector<const JobView*>& mine = c.on_type[j];
    for (int t = 0; t < types; ++t) {
      JobView& v = c.views.emplace_back();
      v.id = j;
      v.gpus = gpus;
      v.arrival_s = j * 10.0;
      v.total_iterations = v.remaining_iterations = 1000;
      v.attained_service_s = 300.0 * (rng() % 10);
      if (gpus <= parts[t].cluster.total().gpus) {
        SetModelFields(v, &c.typed[model * types + t], parts[t].cluster);
      } else {
        SetModelFields(v, &c.typed[model * types + t], c.cluster);  // never chosen: too few GPUs there
      }
      v.last_round_speedup = v.ideal_speedup;
      mine.push_back(&v);
    }
    c.queue.push_back(mine[0]);
  }
  return c;
}

TEST(TypedRound, EveryJobRunsOnOneTypeNoServerIsOvercommittedAndNoneBelowItsShareThere) {
  const ModelZoo zoo = testing::ZooOrDie();
  std::mt19937 rng(20261205);
  std::map<TypeChoice, int> placed, on_other_types;
  for (int iteration = 0; iteration < 150; ++iteration) {
    TypedCase c = RandomTypedCase(rng, zoo);
    const std::string policy_name = PolicyNames()[iteration % 4];
    auto policy = *MakePolicy(policy_name);
    for (const std::string& m : MechanismNames()) {
      if (m == "opt" && iteration % 3 != 0) continue;  // keeps the test fast
      for (TypeChoice choice : {TypeChoice::kFirstFit, TypeChoice::kGpuThroughput, TypeChoice::kBestAllocation,
                                TypeChoice::kProgram}) {
        if (choice == TypeChoice::kProgram && iteration % 3 != 0) continue;  // keeps the test fast
        const std::string label = "case " + std::to_string(iteration) + " " + policy_name + "/" + m + "/" +
                                  TypeChoiceName(choice);
        TypedRoundInput in;
        in.round.now_s = 3600;
        in.round.cluster = &c.cluster;
        in.round.queue = c.queue;
        in.on_type = c.on_type;
        in.choice = choice;
        const RoundResult r = ScheduleTypedRound(in, *policy, **MakeMechanism(m));
        std::vector<Resources> used(c.cluster.num_servers());
        std::map<JobId, int> seen;
        for (const Assignment& a : r.plan.assignments) {
          ASSERT_EQ(++seen[a.job], 1) << label;
          ASSERT_FALSE(a.slices.empty()) << label;
          const int type = c.cluster.gpu_type_of(a.slices.front().server);
          ++placed[choice];
          on_other_types[choice] += type != 0;
          int gpus = 0;
          for (const Slice& s : a.slices) {
            EXPECT_EQ(c.cluster.gpu_type_of(s.server), type) << label << ": job " << a.job << " spans types";
            used[s.server] += s.resources;
            gpus += s.resources.gpus;
          }
          const JobView& view = *c.on_type.at(a.job)[type];
          EXPECT_EQ(gpus, view.gpus) << label;
          if (m == "tune" || m == "tune-graded" || m == "opt") {
            EXPECT_GE(a.speedup, 1.0) << label;
            // Read off the job's profile on that type (1 at its share there).
            const Resources held = a.Total();
            if (!a.at_ideal) {
              EXPECT_GE(view.profile->SpeedupAt(held.cpus / held.gpus, held.mem_gb / held.gpus), 1.0 - 1e-9)
                  << label << " job " << a.job;
            }
          }
        }
        for (int s = 0; s < c.cluster.num_servers(); ++s) {
          const Resources& cap = c.cluster.servers()[s].capacity;
          EXPECT_LE(used[s].gpus, cap.gpus) << label;
          EXPECT_LE(used[s].cpus, cap.cpus + 1e-9) << label;
          EXPECT_LE(used[s].mem_gb, cap.mem_gb + 1e-9) << label;
        }
      }
    }
  }
  for (const auto& [choice, n] : placed) {
    EXPECT_GT(n, 2000) << TypeChoiceName(choice) << ": the cases place jobs";
    EXPECT_GT(on_other_types[choice], n / 4) << TypeChoiceName(choice) << ": and on every type";
  }
}

// Views of `models` (zoo names, one GPU each) on each type of `cluster`.
struct Jobs {
  std::vector<ModelSpec> typed;
  std::deque<JobView> views;
  std::unordered_map<JobId, std::vector<const JobView*>> on_type;
  std::vector<const JobView*> runnable;
  std::vector<TypeRoom> rooms;
};
void AddJobs(Jobs& jobs, const ModelZoo& zoo, const Cluster& cluster, const std::vector<std::string>& models,
             const std::vector<int>& gpus = {}) {
  jobs.typed.reserve(64);
  const int types = static_cast<int>(cluster.gpu_types().size());
  jobs.rooms.clear();
  for (int t = 0; t < types; ++t) {
    const ServersOfType part = ServersOfGpuType(cluster, t);
    jobs.rooms.push_back(TypeRoom{part.cluster.total().gpus, part.cluster.share_per_gpu()});
  }
  for (const std::string& name : models) {
    const JobId id = static_cast<JobId>(jobs.runnable.size());
    const int m = zoo.Find(name);
    for (int t = 0; t < types; ++t) {
      const ServersOfType part = ServersOfGpuType(cluster, t);
      jobs.typed.push_back(*ModelOnGpuType(zoo.model(m), *zoo.GpuSpeed(m, cluster.gpu_types()[t]),
                                          part.cluster.share_per_gpu()));
      JobView& v = jobs.views.emplace_back();
      v.id = id;
      v.gpus = gpus.empty() ? 1 : gpus[id];
      SetModelFields(v, &jobs.typed.back(), part.cluster);
      jobs.on_type[id].push_back(&v);
    }
    jobs.runnable.push_back(jobs.on_type[id][0]);
  }
}

TEST(TypedRound, ByThroughputTheJobThatLosesMostOnASlowTypeGetsTheFastOne) {
  const ModelZoo zoo = testing::ZooOrDie();
  // One GPU of each type with 12 CPUs and 125 GB: alexnet's ideal is the
  // share, so only the GPUs differ; a K80 keeps 0.086 of alexnet's V100
  // throughput and 0.265 of lstm's.
  const Cluster cluster({ServerSpec{"v", Resources{1, 12, 125, 62.5}, {}, "v100"},
                         ServerSpec{"k", Resources{1, 12, 125, 62.5}, {}, "k80"}});
  Jobs jobs;
  AddJobs(jobs, zoo, cluster, {"lstm", "alexnet"});
  const auto choose = [&](std::vector<int> free, TypeChoice c) {
    std::vector<TypeRoom> rooms = jobs.rooms;
    for (size_t t = 0; t < rooms.size(); ++t) rooms[t].gpus = free[t];
    return ChooseGpuTypes(jobs.runnable, jobs.on_type, rooms, c);
  };
  EXPECT_EQ(choose({1, 1}, TypeChoice::kFirstFit), (std::vector<int>{0, 1}));
  EXPECT_EQ(choose({1, 1}, TypeChoice::kGpuThroughput), (std::vector<int>{1, 0}));
  EXPECT_EQ(choose({1, 1}, TypeChoice::kBestAllocation), (std::vector<int>{1, 0}));
  // Where only one type has room, both want it; ties go in runnable order.
  EXPECT_EQ(choose({0, 2}, TypeChoice::kBestAllocation), (std::vector<int>{1, 1}));
  EXPECT_EQ(choose({1, 0}, TypeChoice::kBestAllocation), (std::vector<int>{0, -1}));
}

TEST(TypedRound, ByBestAllocationACpuHungryJobGoesWhereInsensitiveJobsFeedIt) {
  const ModelZoo zoo = testing::ZooOrDie();
  // A V100 server of 4 GPUs, 12 CPUs, 250 GB and a P100 server of 8 GPUs,
  // 24 CPUs, 500 GB (both 3 CPUs and 62.5 GB a GPU). A 6-GPU lstm fits only
  // the P100 and leaves 12 CPUs and 255 GB of its share there; three
  // transformers take the V100s and leave 6 CPUs there. Alexnet, last
  // (it runs at 1.0 at the share on either), needs 9 CPUs beyond its share
  // for its 12: only the P100 can fund them, where it runs at 2.2 (0.75 of
  // its V100 ideal) against 1.0 at the share on the V100.
  const Cluster cluster({ServerSpec{"v", Resources{4, 12, 250, 250}, {}, "v100"},
                         ServerSpec{"p", Resources{8, 24, 500, 500}, {}, "p100"}});
  Jobs jobs;
  AddJobs(jobs, zoo, cluster, {"lstm", "transformer", "transformer", "transformer", "alexnet"}, {6, 1, 1, 1, 1});
  const std::vector<int> by_gpu = ChooseGpuTypes(jobs.runnable, jobs.on_type, jobs.rooms, TypeChoice::kGpuThroughput);
  const std::vector<int> by_best = ChooseGpuTypes(jobs.runnable, jobs.on_type, jobs.rooms, TypeChoice::kBestAllocation);
  EXPECT_EQ(by_gpu, (std::vector<int>{1, 0, 0, 0, 0}));
  EXPECT_EQ(by_best, (std::vector<int>{1, 0, 0, 0, 1}));
  // And TUNE gives it its ideal there.
  TypedRoundInput in;
  in.round.cluster = &cluster;
  in.round.queue = jobs.runnable;
  in.on_type = jobs.on_type;
  in.choice = TypeChoice::kBestAllocation;
  const RoundResult r = ScheduleTypedRound(in, **MakePolicy("fifo"), **MakeMechanism("tune"));
  const Assignment* alexnet = r.plan.Find(4);
  ASSERT_NE(alexnet, nullptr);
  EXPECT_EQ(alexnet->slices[0].server, 1);
  EXPECT_TRUE(alexnet->at_ideal);
  EXPECT_EQ(alexnet->Total().cpus, 12);
}

TEST(TypedRound, TheThreeDimensionalProgramBoundsEveryMechanismUnderEveryChoice) {
  const ModelZoo zoo = testing::ZooOrDie();
  std::mt19937 rng(3);
  int compared = 0;
  for (int iteration = 0; iteration < 60; ++iteration) {
    TypedCase c = RandomTypedCase(rng, zoo);
    auto policy = *MakePolicy(PolicyNames()[iteration % 4]);
    TypedRoundInput in;
    in.round.now_s = 3600;
    in.round.cluster = &c.cluster;
    in.round.queue = c.queue;
    in.on_type = c.on_type;
    in.choice = TypeChoice::kProgram;
    const RoundResult bound = ScheduleTypedRound(in, *policy, **MakeMechanism("tune"));
    ASSERT_TRUE(bound.plan.solver.solved);
    EXPECT_FALSE(bound.plan.solver.fell_back);
    EXPECT_GE(bound.plan.solver.lp_bound, bound.plan.solver.pooled_optimum - 1e-6);
    for (const std::string& m : {"proportional", "tune", "tune-graded", "opt"}) {
      for (TypeChoice choice : {TypeChoice::kFirstFit, TypeChoice::kGpuThroughput, TypeChoice::kBestAllocation,
                                TypeChoice::kProgram}) {
        in.choice = choice;
        const RoundResult r = ScheduleTypedRound(in, *policy, **MakeMechanism(m));
        double value = 0;
        for (const Assignment& a : r.plan.assignments) {
          const std::vector<const JobView*>& views = c.on_type.at(a.job);
          value += a.speedup * RelativeThroughputAtShare(views)[c.cluster.gpu_type_of(a.slices.front().server)];
        }
        EXPECT_LE(value, bound.plan.solver.lp_bound + 1e-6)
            << "case " << iteration << " " << m << "/" << TypeChoiceName(choice);
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, 60 * 16);
}

}  // namespace
}  // namespace synergy
