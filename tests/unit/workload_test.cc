#include "sim/workload.h"

#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "sim/trace.h"
#include "test_support.h"

namespace synergy::sim {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// t1.csv was recorded by the reference simulator at load 9, split 20,70,10,
// seed 42: the generator must give the same jobs, line for line.
TEST(WorkloadGenerator, ReproducesTheReferenceRecording) {
  ModelZoo zoo = testing::ZooOrDie();
  const std::string recorded =
      ReadFile(std::string(SYNERGY_SOURCE_DIR) + "/tests/fidelity/data/traces/t1.csv");
  ASSERT_FALSE(recorded.empty());
  GeneratorConfig config;  // load 9, seed 42, 20,70,10, mixed GPUs
  WorkloadGenerator gen(config, zoo);
  std::istringstream lines(recorded);
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    ASSERT_EQ(FormatTraceLine(gen.Next(), zoo), line + "\n") << "job " << n;
    ++n;
  }
  EXPECT_EQ(n, 1546);
}

TEST(WorkloadGenerator, SameSeedSameJobsOtherSeedOtherJobs) {
  ModelZoo zoo = testing::ZooOrDie();
  GeneratorConfig a;
  a.seed = 7;
  WorkloadGenerator g1(a, zoo), g2(a, zoo);
  a.seed = 8;
  WorkloadGenerator g3(a, zoo);
  int differ = 0;
  for (int i = 0; i < 100; ++i) {
    JobSpec x = g1.Next(), y = g2.Next(), z = g3.Next();
    EXPECT_EQ(FormatTraceLine(x, zoo), FormatTraceLine(y, zoo));
    differ += FormatTraceLine(x, zoo) != FormatTraceLine(z, zoo);
  }
  EXPECT_GT(differ, 90);
}

TEST(WorkloadGenerator, SingleGpuOptionKeepsEverythingElse) {
  ModelZoo zoo = testing::ZooOrDie();
  GeneratorConfig mixed;
  GeneratorConfig single;
  single.multi_gpu = false;
  WorkloadGenerator a(mixed, zoo), b(single, zoo);
  int multi = 0;
  for (int i = 0; i < 500; ++i) {
    JobSpec x = a.Next(), y = b.Next();
    EXPECT_EQ(y.gpus, 1);
    EXPECT_EQ(x.arrival_s, y.arrival_s);
    EXPECT_EQ(x.iterations, y.iterations);
    EXPECT_EQ(x.model, y.model);
    multi += x.gpus > 1;
  }
  EXPECT_GT(multi, 100);  // about 30% of the mixed jobs
}

TEST(WorkloadGenerator, ModelMixFollowsTheSplit) {
  ModelZoo zoo = testing::ZooOrDie();
  GeneratorConfig c;
  c.split_percent = {50, 0, 50};
  WorkloadGenerator g(c, zoo);
  int image = 0;
  for (int i = 0; i < 1000; ++i) {
    const Task t = zoo.model(g.Next().model).task;
    EXPECT_NE(t, Task::kLanguage);
    image += t == Task::kImage;
  }
  EXPECT_NEAR(image, 500, 2);
}

}  // namespace
}  // namespace synergy::sim
