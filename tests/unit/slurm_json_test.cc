// What synergyd's Slurm executor reads of Slurm (slurm/slurm_json.h), on
// the output of a real Slurm 22.05 (tests/data/slurm: sinfo and squeue
// --json of the loopback cluster of tests/integration/slurm_lib.sh, with
// synergy's job names), and on text that is not Slurm's.
#include "slurm/slurm_json.h"

#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace synergy::slurm {
namespace {

std::string Data(const std::string& name) {
  std::ifstream in(std::string(SYNERGY_SOURCE_DIR) + "/tests/data/slurm/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SlurmJson, NodesOfARealSinfo) {
  auto nodes = ParseSinfoJson(Data("sinfo-busy.json"));
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 2u);
  const SlurmNode& sn1 = (*nodes)[0];
  EXPECT_EQ(sn1.name, "sn1");
  EXPECT_EQ(sn1.state, "mixed");
  EXPECT_TRUE(sn1.usable);
  EXPECT_EQ(sn1.cpus, 2);
  EXPECT_EQ(sn1.memory_mb, 2000);
  EXPECT_EQ(sn1.gpus, 2);
  EXPECT_EQ(sn1.gpu_type, "");
  EXPECT_EQ(sn1.partitions, std::vector<std::string>{"synergy"});
  EXPECT_EQ((*nodes)[1].state, "idle");
}

TEST(SlurmJson, JobsOfARealSqueueWithTheirPhasesAndExits) {
  auto jobs = ParseSqueueJson(Data("squeue.json"));
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 4u);
  const SlurmJob& running = (*jobs)[0];
  EXPECT_EQ(running.id, 1);
  EXPECT_EQ(running.name, "synergy-j-000001-3");
  EXPECT_EQ(running.phase, JobPhase::kRunning);
  EXPECT_EQ(running.nodes, "sn1");
  EXPECT_EQ(running.partition, "synergy");
  const SlurmJob& crashed = (*jobs)[1];  // `exit 7`
  EXPECT_EQ(crashed.state, "FAILED");
  EXPECT_EQ(crashed.phase, JobPhase::kEnded);
  EXPECT_EQ(crashed.exit_code, 7);
  EXPECT_EQ(crashed.signal, 0);
  EXPECT_EQ((*jobs)[2].phase, JobPhase::kEnded);
  EXPECT_EQ((*jobs)[2].exit_code, 0);
  EXPECT_EQ((*jobs)[3].phase, JobPhase::kPending);
  EXPECT_EQ((*jobs)[3].nodes, "");
}

TEST(SlurmJson, NodeStatesAndFlagsThatKeepJobsOff) {
  const auto node = [](const std::string& state, const std::string& flags, const std::string& gres) {
    auto n = ParseSinfoJson(R"({"nodes": [{"name": "x", "state": ")" + state + R"(", "state_flags": [)" + flags +
                            R"(], "cpus": 8, "real_memory": 64000, "gres": ")" + gres +
                            R"(", "partitions": ["p"]}]})");
    EXPECT_TRUE(n.ok()) << n.status();
    return n.ok() ? n->at(0) : SlurmNode{};
  };
  EXPECT_TRUE(node("allocated", "", "gpu:8").usable);
  EXPECT_FALSE(node("down", "", "gpu:8").usable);
  EXPECT_FALSE(node("idle", R"("DRAIN")", "gpu:8").usable);
  EXPECT_FALSE(node("mixed", R"("NOT_RESPONDING")", "gpu:8").usable);
  EXPECT_FALSE(node("future", "", "gpu:8").usable);
  const SlurmNode typed = node("idle", "", "gpu:a100:4(S:0-1),mps:100");
  EXPECT_EQ(typed.gpus, 4);
  EXPECT_EQ(typed.gpu_type, "a100");
  const SlurmNode mixed = node("idle", "", "gpu:a100:2,gpu:v100:2");
  EXPECT_EQ(mixed.gpus, 4);
  EXPECT_EQ(mixed.gpu_type, "") << "several types: none named";
  EXPECT_EQ(node("idle", "", "").gpus, 0);
}

TEST(SlurmJson, ASignalledJobReportsItsSignal) {
  auto jobs = ParseSqueueJson(
      R"({"jobs": [{"job_id": 9, "user_id": 1001, "name": "synergy-j-000002-1", "job_state": "CANCELLED",
                     "exit_code": 9}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->at(0).signal, 9);
  EXPECT_EQ(jobs->at(0).exit_code, 0);
  EXPECT_EQ(jobs->at(0).phase, JobPhase::kEnded);
}

TEST(SlurmJson, TextThatIsNotSlurmsIsRefusedNamingTheField) {
  const auto refusal = [](const std::string& text) {
    auto jobs = ParseSqueueJson(text);
    EXPECT_FALSE(jobs.ok()) << text;
    return jobs.ok() ? std::string() : std::string(jobs.status().message());
  };
  EXPECT_EQ(refusal("not json").rfind("squeue --json: not JSON", 0), 0u);
  EXPECT_EQ(refusal("{}"), "squeue --json: jobs: missing");
  EXPECT_EQ(refusal(R"({"jobs": 3})"), "squeue --json: jobs: 3: is not a list");
  const std::string lease = R"("name": "synergy-j-000001-2", "user_id": 0, "job_state": "RUNNING")";
  EXPECT_EQ(refusal(R"({"jobs": [{"job_id": 1.5, )" + lease + R"(, "exit_code": 0}]})"),
            "squeue --json: jobs[0].job_id: 1.5: is not an integer from 1 to 9007199254740992");
  EXPECT_EQ(refusal(R"({"jobs": [{"job_id": 1, )" + lease + R"(, "exit_code": 70000}]})"),
            "squeue --json: jobs[0].exit_code: 70000: is not an integer from 0 to 65535");
  EXPECT_EQ(refusal(R"({"jobs": [{"job_id": 1, "name": "synergy-j-000001-2", "job_state": "RUNNING",
                                  "exit_code": 0}]})"),
            "squeue --json: jobs[0].user_id: missing");
  auto nodes = ParseSinfoJson(R"({"nodes": [{"name": "x", "state": "idle", "cpus": 8, "real_memory": 1,
                                             "gres": "gpu:many"}]})");
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().message(),
            "sinfo --json: nodes[0].gres: 'gpu:many': is not a gres list Slurm writes (gpu:[TYPE:]COUNT, ...)");
}

// squeue lists every job of the cluster (22.05 ignores -j and -p with
// --json): other users' jobs, whatever they hold, are skipped unread, and
// so are nodes of other partitions.
TEST(SlurmJson, LeaseJobsOfAnotherPartitionAreSkippedUnread) {
  auto jobs = ParseSqueueJson(R"({"jobs": [
      {"job_id": 1, "user_id": "x", "name": "synergy-j-000003-1", "job_state": "PENDING", "exit_code": 0,
       "partition": "batch"},
      {"job_id": 2, "user_id": 1001, "name": "synergy-j-000003-2", "job_state": "PENDING", "exit_code": 0,
       "partition": "synergy"}]})",
                              "synergy");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ(jobs->at(0).id, 2);
}

TEST(SlurmJson, WhatIsNotOursIsSkippedUnread) {
  auto jobs = ParseSqueueJson(R"({"jobs": [
      {"job_id": -4, "name": "someone's job", "job_state": 7, "exit_code": "x", "nodes": 3},
      {"name": 12},
      {"job_id": 2, "user_id": 1001, "name": "synergy-j-000003-1", "job_state": "PENDING", "exit_code": 0}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ(jobs->at(0).id, 2);
  EXPECT_EQ(jobs->at(0).user_id, 1001);
  const std::string text = R"({"nodes": [
      {"name": "other", "state": "idle", "cpus": "many", "gres": "gpu:?", "partitions": ["batch"]},
      {"name": "mine", "state": "idle", "cpus": 8, "real_memory": 1024, "gres": "gpu:1", "partitions": ["synergy"]}]})";
  auto nodes = ParseSinfoJson(text, "synergy");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ(nodes->at(0).name, "mine");
  EXPECT_FALSE(ParseSinfoJson(text).ok()) << "every node read where no partition is given";
  auto odd = ParseSinfoJson(R"({"nodes": [{"name": "x", "state": "idle", "cpus": 8, "real_memory": 1,
                                           "gres": "gpu:a:b:c:2"}]})");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("is not a gres list"), std::string::npos);
}

TEST(SlurmJson, ALeasesSlurmJobNameRoundTrips) {
  EXPECT_EQ(SlurmJobName("j-000012", 7), "synergy-j-000012-7");
  EXPECT_EQ(LeaseOfSlurmJobName("synergy-j-000012-7"), (LeaseKey{"j-000012", 7}));
  EXPECT_FALSE(LeaseOfSlurmJobName("train-resnet"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-j-000012-07"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-j-000012-"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy--7"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-j-000012-x"));
  // A name its owner gave a Slurm job: no job id synergyd would give.
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-a b-1"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-j/../x-1"));
  EXPECT_FALSE(LeaseOfSlurmJobName("synergy-" + std::string(300, 'j') + "-1"));
}

TEST(SlurmJson, ErrorsFromSlurmAreUnavailableNotAnEmptyList) {
  const std::string down =
      R"json({"meta": {}, "errors": [{"error": "Unable to contact slurm controller (connect failure)", "errno": 1001}],)json";
  auto nodes = ParseSinfoJson(down + R"( "nodes": []})");
  EXPECT_EQ(nodes.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(nodes.status().message()),
              ::testing::HasSubstr("sinfo --json: Slurm reports 1 error(s), the first 'Unable to contact slurm controller"));
  auto jobs = ParseSqueueJson(down + R"( "jobs": []})");
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(ParseSqueueJson(R"({"errors": [], "jobs": []})").ok()) << "an empty errors list is no error";
  EXPECT_EQ(ParseSqueueJson(R"({"errors": ["plain text"], "jobs": []})").status().code(), absl::StatusCode::kUnavailable);
  // Found by the fuzzer: an error that is neither text nor an object.
  auto odd = ParseSinfoJson(R"({"errors": [0], "nodes": []})");
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(odd.status().message()), ::testing::HasSubstr("the first (no text)"));
}

TEST(SlurmJson, AnEndedJobsEndTimeIsRead) {
  auto jobs = ParseSqueueJson(
      R"({"jobs": [{"job_id": 7, "user_id": 1000, "name": "synergy-j-000001-3", "job_state": "COMPLETED",)"
      R"( "exit_code": 0, "end_time": 1796483510}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].end_unix_s, 1796483510);
}

}  // namespace
}  // namespace synergy::slurm
