// synergyctl's -o json and -o yaml: the same document, and no raw control
// character from a job's fields in either.
#include "cli/message_output.h"

#include "gtest/gtest.h"
#include "synergy/v1/synergy.pb.h"
#include "yaml-cpp/yaml.h"

namespace synergy::cli {
namespace {

v1::ListJobsResponse Listing() {
  v1::ListJobsResponse list;
  v1::Job* job = list.add_jobs();
  job->set_id("j-000007");
  job->mutable_spec()->set_name("evil\x1b[2Jname: yes\n- x");
  job->mutable_spec()->set_gpus(2);
  job->mutable_spec()->add_command("python3");
  job->mutable_spec()->add_command("-c");
  job->mutable_spec()->add_command("print('a: b')");
  (*job->mutable_spec()->mutable_env())["PATH"] = "/usr/bin";
  job->set_state(v1::JOB_STATE_RUNNING);
  job->set_submitted_unix_ms(1764896000123);
  job->set_throughput(12.5);
  job->set_held(true);
  job->mutable_lease()->set_epoch(3);
  list.add_jobs()->set_id("j-000008");
  return list;
}

TEST(MessageOutput, YamlIsTheJsonDocumentInBlockStyle) {
  const std::string yaml = Yaml(Listing());
  const YAML::Node from_yaml = YAML::Load(yaml);
  const YAML::Node from_json = YAML::Load(Json(Listing()));
  ASSERT_EQ(from_yaml["jobs"].size(), 2u);
  EXPECT_EQ(from_yaml["jobs"][0]["spec"]["name"].as<std::string>(), "evil\x1b[2Jname: yes\n- x");
  EXPECT_EQ(from_yaml["jobs"][0]["spec"]["command"][2].as<std::string>(), "print('a: b')");
  EXPECT_EQ(from_yaml["jobs"][0]["spec"]["env"]["PATH"].as<std::string>(), "/usr/bin");
  EXPECT_EQ(from_yaml["jobs"][0]["submitted_unix_ms"].as<std::string>(), "1764896000123");
  EXPECT_NE(yaml.find("submitted_unix_ms: \"1764896000123\""), std::string::npos)
      << "a 64-bit integer is a string in protobuf's JSON, and stays one:\n" << yaml;
  EXPECT_NE(yaml.find("gpus: 2\n"), std::string::npos) << yaml;
  EXPECT_EQ(from_yaml["jobs"][0]["throughput"].as<double>(), 12.5);
  EXPECT_TRUE(from_yaml["jobs"][0]["held"].as<bool>());
  EXPECT_EQ(from_yaml["jobs"][0]["state"].as<std::string>(), "JOB_STATE_RUNNING");
  EXPECT_EQ(from_yaml["jobs"][1]["id"].as<std::string>(), "j-000008");
  EXPECT_EQ(yaml.find('{'), std::string::npos) << "block style, not flow:\n" << yaml;
}

TEST(MessageOutput, NoRawControlCharacterReachesTheTerminal) {
  for (const std::string& out : {Json(Listing()), Yaml(Listing())}) {
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
  }
}

TEST(MessageOutput, StructuredPicksTheFormat) {
  EXPECT_TRUE(IsStructuredOutput("json"));
  EXPECT_TRUE(IsStructuredOutput("yaml"));
  EXPECT_FALSE(IsStructuredOutput("wide"));
  EXPECT_EQ(Structured(Listing(), "yaml"), Yaml(Listing()));
  EXPECT_EQ(Structured(Listing(), "json"), Json(Listing()));
}

}  // namespace
}  // namespace synergy::cli
