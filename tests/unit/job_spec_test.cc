#include "service/job_spec.h"

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::service {
namespace {

TEST(JobSpecYaml, ParsesEveryField) {
  auto spec = ParseJobSpecYaml(
      "name: train\nmodel: res18\ngpus: 2\niterations: 500\ncommand: [./train, --lr, '0.1']\n"
      "env: {A: b}\nmax_retries: 3\nuses_agent: true\ntenant: vision\npriority: 7\n",
      "job.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name(), "train");
  EXPECT_EQ(spec->gpus(), 2);
  EXPECT_EQ(spec->iterations(), 500);
  ASSERT_EQ(spec->command_size(), 3);
  EXPECT_EQ(spec->command(2), "0.1");
  EXPECT_EQ(spec->env().at("A"), "b");
  EXPECT_EQ(spec->max_retries(), 3);
  EXPECT_TRUE(spec->uses_agent());
  EXPECT_EQ(spec->tenant(), "vision");
  EXPECT_EQ(spec->priority(), 7);
}

TEST(JobSpecYaml, CommandStringIsSplitOnSpaces) {
  auto spec = ParseJobSpecYaml("gpus: 1\ncommand: sleep  5\n", "j.yaml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  ASSERT_EQ(spec->command_size(), 2);
  EXPECT_EQ(spec->max_retries(), -1);  // the daemon's default
}

TEST(JobSpecYaml, ErrorsNameFileLineAndField) {
  auto unknown = ParseJobSpecYaml("gpus: 1\ngpu: 2\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("j.yaml:2: gpu: unknown field (fields: name, model, gpus,"),
            std::string::npos)
      << unknown.status();
  auto bad = ParseJobSpecYaml("gpus: two\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("j.yaml:1: gpus: 'two'"), std::string::npos) << bad.status();
  auto zero = ParseJobSpecYaml("gpus: 0\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find("spec.gpus: 0 is not a positive GPU count"), std::string::npos);
  auto none = ParseJobSpecYaml("gpus: 1\n", "j.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("spec.command: required"), std::string::npos);
  auto prio = ParseJobSpecYaml("gpus: 1\npriority: -2\ncommand: [x]\n", "j.yaml");
  ASSERT_FALSE(prio.ok());
  EXPECT_NE(prio.status().message().find("spec.priority: -2 is not a priority class (0 to 1000)"), std::string::npos)
      << prio.status();
  auto yaml = ParseJobSpecYaml("gpus: [1\n", "j.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("j.yaml:"), std::string::npos);
}

TEST(JobSpecYaml, HostileInputsAreErrors) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  const Case cases[] = {
      {"? [a, b]\n: 1\n", "j.yaml:1: document: (a list): is not a field name"},
      {"gpus: 1\ncommand: {a: b}\n", "j.yaml:2: command: (a map): is not a list or a string"},
      {"gpus: 1\ncommand: [x, [y]]\n", "j.yaml:2: command[1]: (a list): is not a string"},
      {"gpus: 1\ncommand: [x]\nenv: {A: 1, A: 2}\n", "j.yaml:3: env.A: given twice"},
      {"gpus: 1\ncommand: [x]\nenv: {? [A]: 1}\n", "j.yaml:3: env: (a list): is not a field name"},
      {"gpus: 1\ncommand: [x]\nenv: {A: [1]}\n", "j.yaml:3: env.A: (a list): is not a string"},
      {"gpus: 4294967297\ncommand: [x]\n", "j.yaml:1: gpus: '4294967297': must be between -2147483648 and 2147483647"},
      {"gpus: 1\ngpus: 2\ncommand: [x]\n", "j.yaml:2: gpus: given twice (first on line 1)"},
      {"gpus: 1\ncommand: [x]\nuses_agent: maybe\n", "j.yaml:3: uses_agent: 'maybe': is not true or false"},
      {"[gpus]\n", "j.yaml:1: document: (a list): is not a map"},
  };
  for (const Case& c : cases) {
    auto spec = ParseJobSpecYaml(c.yaml, "j.yaml");
    ASSERT_FALSE(spec.ok()) << c.yaml;
    EXPECT_NE(spec.status().message().find(c.message), std::string::npos) << spec.status();
  }
}

TEST(JobSpecYaml, AliasesCannotBlowUpTheCommandOrEnv) {
  // One 32 kB argument named 200 times would be 6.4 MB of argv; refused
  // against request_limits.h's 64 KiB before it is copied.
  std::string text = "gpus: 1\ncommand: [&a " + std::string(32000, 'a');
  for (int i = 0; i < 200; ++i) text += ", *a";
  text += "]\n";
  auto spec = ParseJobSpecYaml(text, "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("j.yaml:2: command: (a list): holds more than 65536 bytes"),
            std::string::npos)
      << spec.status();
  std::string many = "gpus: 1\ncommand: [x";
  for (int i = 0; i < 300; ++i) many += ", x";
  many += "]\n";
  spec = ParseJobSpecYaml(many, "j.yaml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("j.yaml:2: command: (a list): must have at most 256 items (has 301)"),
            std::string::npos)
      << spec.status();
}

TEST(ValidateJobSpec, ChecksLimitsAndModels) {
  const ModelZoo zoo = testing::ZooOrDie();
  v1::JobSpec spec;
  spec.set_gpus(9);
  spec.add_command("x");
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.gpus: 9 is more than the cluster's 8"),
            std::string::npos);
  spec.set_gpus(1);
  EXPECT_TRUE(ValidateJobSpec(spec, JobLimits{8, &zoo}).ok());
  spec.set_model("vgg99");
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.model: unknown model 'vgg99'"),
            std::string::npos);
  spec.set_model("res18");
  spec.set_uses_agent(true);
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.iterations"), std::string::npos);
  spec.set_iterations(10);
  (*spec.mutable_env())["SYNERGY_JOB_ID"] = "x";
  EXPECT_NE(ValidateJobSpec(spec, JobLimits{8, &zoo}).message().find("spec.env"), std::string::npos);
}

}  // namespace
}  // namespace synergy::service

#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/config.h"
#include "node/node_config.h"
#include "synergy/default_configs.h"

namespace synergy::service {
namespace {

TEST(JobSpecYaml, ShippedExamplesParse) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SYNERGY_SOURCE_DIR) + "/configs/jobs")) {
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    auto spec = ParseJobSpecYaml(ss.str(), entry.path().string());
    EXPECT_TRUE(spec.ok()) << spec.status();
    ++files;
  }
  EXPECT_GE(files, 3);
}

TEST(DaemonConfig, EmbeddedDefaultNeedsTlsOrExplicitPlainText) {
  auto refused = daemon::LoadDaemonConfig("");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("tls.cert and tls.key: required"), std::string::npos) << refused.status();
}

TEST(DaemonConfig, EmbeddedDefaultAndErrors) {
  auto c = daemon::ParseDaemonConfig(kDefaultDaemonYaml, "<embedded>", daemon::DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->auth.required);
  EXPECT_FALSE(c->tls.plaintext);
  EXPECT_EQ(c->listen, "127.0.0.1:50051");
  EXPECT_EQ(c->mechanism, "tune");
  EXPECT_EQ(c->round_s, 300);
  EXPECT_EQ(c->profile_wait_s, 600);
  auto wait = daemon::ParseDaemonConfig("profile_wait_s: -1\n", "d.yaml", *c);
  EXPECT_NE(wait.status().message().find("d.yaml:1: profile_wait_s: '-1' is negative"), std::string::npos)
      << wait.status();
  auto forever = daemon::ParseDaemonConfig("profile_wait_s: .inf\n", "d.yaml", *c);
  EXPECT_NE(forever.status().message().find("d.yaml:1: profile_wait_s: '.inf' is not a finite number"),
            std::string::npos)
      << forever.status();
  auto bad = daemon::ParseDaemonConfig("policy: fifo\nround_s: -3\n", "d.yaml", *c);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("d.yaml:2: round_s: '-3' is not > 0"), std::string::npos) << bad.status();
  auto mech = daemon::ParseDaemonConfig("mechanism: best\n", "d.yaml", *c);
  EXPECT_NE(mech.status().message().find("d.yaml:1: mechanism: 'best' is not one of"), std::string::npos);
  auto unknown = daemon::ParseDaemonConfig("rounds: 3\n", "d.yaml", *c);
  EXPECT_NE(unknown.status().message().find("unknown setting 'rounds'"), std::string::npos);
}

TEST(NodeConfig, EmbeddedDefaultGpuIdsAndErrors) {
  auto c = node::LoadNodeConfig("");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->scheduler, "127.0.0.1:50051");
  auto ids = node::ParseNodeConfig("gpus: [2, 3]\ncpus: [0]\nmemory_gb: 8\n", "n.yaml", *c);
  ASSERT_TRUE(ids.ok()) << ids.status();
  auto offer = node::Discover(*ids);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->gpu_ids, (std::vector<int>{2, 3}));
  EXPECT_EQ(offer->cpu_ids, (std::vector<int>{0}));
  EXPECT_EQ(offer->memory_gb, 8);
  auto bad = node::ParseNodeConfig("gpus: -1\n", "n.yaml", *c);
  EXPECT_NE(bad.status().message().find("n.yaml:1: gpus: is negative"), std::string::npos) << bad.status();
  auto bad_slots = node::ParseNodeConfig("gpus: 2\ncpu_slots: -4\n", "n.yaml", *c);
  EXPECT_NE(bad_slots.status().message().find("n.yaml:2: cpu_slots: is negative"), std::string::npos)
      << bad_slots.status();
}

TEST(NodeConfig, CpuSlotsAreSharesOfTheConfiguredCores) {
  auto c = node::ParseNodeConfig("gpus: 2\ncpus: [0, 1]\ncpu_slots: 8\nmemory_gb: 8\n", "n.yaml",
                                 *node::LoadNodeConfig(""));
  ASSERT_TRUE(c.ok()) << c.status();
  auto offer = node::Discover(*c);
  ASSERT_TRUE(offer.ok());
  EXPECT_EQ(offer->cpu_ids, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // what the scheduler hands out
  EXPECT_EQ(offer->shared_cores, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(offer->cores_per_cpu, 0.25);
  auto pinned = node::Discover(*node::ParseNodeConfig("cpus: [0, 1]\n", "n.yaml", *node::LoadNodeConfig("")));
  ASSERT_TRUE(pinned.ok());
  EXPECT_TRUE(pinned->shared_cores.empty());
  EXPECT_EQ(pinned->cores_per_cpu, 0);
}

}  // namespace
}  // namespace synergy::service
