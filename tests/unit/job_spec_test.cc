#include "service/job_spec.h"

#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::service {
namespace {

TEST(JobSpecYaml, ParsesEveryField) {
  auto spec = ParseJobSpecYaml(
      "name: train\nmodel: res18\ngpus: 2\niterations: 500\ncommand: [./train, --lr, '0.1']\n"
      "env: {A: b}\nmax_retries: 3\nuses_agent: true\ntenant: vision\n",
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
  EXPECT_NE(unknown.status().message().find("j.yaml:2: unknown field 'gpu'"), std::string::npos)
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
  auto yaml = ParseJobSpecYaml("gpus: [1\n", "j.yaml");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("j.yaml:"), std::string::npos);
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
