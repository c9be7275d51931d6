#include "synergy/config_loader.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace synergy {
namespace {

using ::testing::HasSubstr;

TEST(ClusterLoader, ShippedClusters) {
  auto c = LoadClusterFile(std::string(SYNERGY_SOURCE_DIR) + "/configs/clusters/philly-512.yaml");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->num_servers(), 64);
  EXPECT_EQ(c->total().gpus, 512);
  EXPECT_EQ(c->share_per_gpu(), (Resources{1, 3, 62.5, 62.5}));
}

TEST(ClusterLoader, CountRepeatsAServer) {
  auto c = ParseCluster(
      "servers:\n  - {name: a, count: 2, gpus: 4, cpus: 16, memory_gb: 128, storage_mbps: 100}\n"
      "  - {name: big, gpus: 8, cpus: 32, memory_gb: 512}\n",
      "x.yaml");
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_EQ(c->num_servers(), 3);
  EXPECT_EQ(c->servers()[2].capacity, (Resources{8, 32, 512, 0}));
  EXPECT_EQ(c->total().gpus, 16);
}

TEST(ClusterLoader, NegativeGpusNamesFileLineAndField) {
  auto c = ParseCluster("servers:\n  - name: a\n    gpus: -1\n    cpus: 4\n    memory_gb: 8\n",
                        "bad.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("bad.yaml:3: servers[0].gpus"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("'-1'"));
}

TEST(ClusterLoader, ZeroGpusRefused) {
  auto c = ParseCluster("servers:\n  - {gpus: 0, cpus: 4, memory_gb: 8}\n", "z.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("servers[0].gpus"));
}

TEST(ClusterLoader, UnknownFieldRefused) {
  auto c = ParseCluster("servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpu: 3}\n", "u.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("servers[0].gpu"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("unknown field"));
}

TEST(ClusterLoader, MalformedYamlNamesTheLine) {
  auto c = ParseCluster("servers:\n  - {gpus: 8, cpus: [24\n", "m.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("m.yaml:"));
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("malformed YAML"));
}

// Inputs that used to abort synergy-sim (an uncaught yaml-cpp exception) or
// to size its vectors by a typing mistake.
TEST(ClusterLoader, HostileInputsAreErrors) {
  struct Case {
    std::string yaml;
    const char* message;
  };
  const Case cases[] = {
      {"? [a, b]\n: 1\n", "h.yaml:1: document: (a list): is not a field name"},
      {"servers:\n  - {name: {a: 1}, gpus: 8, cpus: 24, memory_gb: 500}\n",
       "h.yaml:2: servers[0].name: (a map): is not a string"},
      {"servers:\n  - {gpus: 8, cpus: 1e308, memory_gb: 500}\n",
       "h.yaml:2: servers[0].cpus: '1e308': must be > 0 and at most 4096"},
      {"servers:\n  - {gpus: 1000000000, cpus: 24, memory_gb: 500}\n",
       "h.yaml:2: servers[0].gpus: '1000000000': must be between 1 and 1024"},
      {"servers:\n  - {gpus: 8, cpus: 24, memory_gb: .nan}\n",
       "h.yaml:2: servers[0].memory_gb: '.nan': is not a finite number"},
      {"servers:\n  - {count: 60000, gpus: 8, cpus: 24, memory_gb: 500}\n"
       "  - {count: 60000, gpus: 8, cpus: 24, memory_gb: 500}\n",
       "h.yaml:3: servers[1].count: '60000': brings the cluster past 100000 servers"},
      {"servers:\n  - {gpus: 8, cpus: 24, memory_gb: 500, gpus: 4}\n",
       "h.yaml:2: servers[0].gpus: given twice (first on line 2)"},
      {"servers: {gpus: 8}\n", "h.yaml:1: servers: (a map): is not a list"},
      {"servers: []\n", "h.yaml:1: servers: (a list): must have at least 1 item (has 0)"},
      {"servers:\n  - {name: " + std::string(300, 'n') + ", count: 100000, gpus: 8, cpus: 24, memory_gb: 500}\n",
       "(300 bytes): is longer than 253 bytes"},
      {"- 1\n", "h.yaml:1: document: (a list): is not a map"},
  };
  for (const Case& c : cases) {
    auto cluster = ParseCluster(c.yaml, "h.yaml");
    ASSERT_FALSE(cluster.ok()) << c.yaml;
    EXPECT_THAT(std::string(cluster.status().message()), HasSubstr(c.message)) << c.yaml;
  }
}

TEST(ClusterLoader, MissingFileIsAnError) {
  auto c = LoadClusterFile("/nonexistent/cluster.yaml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("/nonexistent/cluster.yaml"));
}

TEST(ModelZooLoader, ShippedZooHasTenModels) {
  auto z = LoadModelZooFile(std::string(SYNERGY_SOURCE_DIR) + "/configs/models/zoo.yaml");
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->models().size(), 10u);
  const ModelSpec& alexnet = z->model(z->Find("alexnet"));
  EXPECT_EQ(alexnet.task, Task::kImage);
  EXPECT_EQ(alexnet.iteration_time_s, 0.6);
  EXPECT_EQ(alexnet.profile.ideal_per_gpu().cpus, 12);
  EXPECT_EQ(alexnet.profile.ideal_per_gpu().mem_gb, 125);
  EXPECT_EQ(alexnet.profile.ideal_speedup(), 2.94);
}

TEST(ModelZooLoader, BadTaskNamed) {
  auto z = ParseModelZoo(
      "cpu_points: [1, 3]\nmemory_points_gb: [10, 62.5]\nmodels:\n"
      "  - name: m\n    task: vision\n    ideal: {cpus: 3, memory_gb: 62.5}\n    speedup: 1\n"
      "    iteration_time_s: 1\n    throughput: [[0.5, 0.5], [1, 1]]\n",
      "zoo.yaml");
  ASSERT_FALSE(z.ok());
  EXPECT_THAT(std::string(z.status().message()), HasSubstr("zoo.yaml:5: models[0].task"));
  EXPECT_THAT(std::string(z.status().message()), HasSubstr("'vision'"));
}

TEST(ModelZooLoader, ThroughputShapeChecked) {
  auto z = ParseModelZoo(
      "cpu_points: [1, 3]\nmemory_points_gb: [10, 62.5]\nmodels:\n"
      "  - name: m\n    task: image\n    ideal: {cpus: 3, memory_gb: 62.5}\n    speedup: 1\n"
      "    iteration_time_s: 1\n    throughput: [[0.5, 0.5]]\n",
      "zoo.yaml");
  ASSERT_FALSE(z.ok());
  EXPECT_THAT(std::string(z.status().message()), HasSubstr("models[0].throughput"));
}

TEST(ModelZooLoader, HostileInputsAreErrors) {
  const std::string head = "cpu_points: [1, 3]\nmemory_points_gb: [10, 62.5]\nmodels:\n";
  const std::string model =
      "  - name: m\n    task: image\n    ideal: {cpus: 3, memory_gb: 62.5}\n    speedup: 1\n"
      "    iteration_time_s: 1\n    throughput: [[0.5, 0.5], [1, 1]]\n";
  struct Case {
    std::string yaml;
    const char* message;
  };
  const Case cases[] = {
      {"? {a: 1}\n: 1\n", "zoo.yaml:1: document: (a map): is not a field name"},
      {"cpu_points: [1, 1]\nmemory_points_gb: [10]\nmodels: []\n",
       "zoo.yaml:1: cpu_points[1]: '1': must be above the previous point"},
      {"cpu_points: [1e308]\nmemory_points_gb: [10]\nmodels: []\n",
       "zoo.yaml:1: cpu_points[0]: '1e308': must be > 0 and at most 4096"},
      {head + model + model, "zoo.yaml:10: models[1].name: 'm': is listed twice"},
      {head + "  - name: [m]\n", "zoo.yaml:4: models[0].name: (a list): is not a string"},
      {head + "  - name: m\n    task: image\n    ideal: 3\n",
       "zoo.yaml:6: models[0].ideal: '3': is not a map"},
      {head + "  - name: m\n    task: image\n    ideal: {cpus: 3, memory_gb: 62.5}\n    speedup: 1\n"
              "    iteration_time_s: 1\n    throughput: [[0.5, .inf], [1, 1]]\n",
       "zoo.yaml:9: models[0].throughput[0][1]: '.inf': is not a finite number"},
  };
  for (const Case& c : cases) {
    auto zoo = ParseModelZoo(c.yaml, "zoo.yaml");
    ASSERT_FALSE(zoo.ok()) << c.yaml;
    EXPECT_THAT(std::string(zoo.status().message()), HasSubstr(c.message)) << c.yaml;
  }
}

}  // namespace
}  // namespace synergy
