// What synergyd's Slurm executor reads of Slurm (slurm/slurm_json.h), on
// the output of a real Slurm 22.05 (tests/data/slurm: sinfo and squeue
// --json of the loopback cluster of tests/integration/slurm_lib.sh, with
// synergy's job names), and on text that is not Slurm's.
#include "slurm/slurm_json.h"

#include "../slurm_samples.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace synergy::slurm {
namespace {

// `text` (a recorded squeue of another site) with its jobs renamed as
// leases j-000001-1, j-000002-1, ... in order: the parser reads only
// lease jobs. Nothing else of the recording changes.
std::string AsLeases(const std::string& text) {
  google::protobuf::Struct doc;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text, &doc).ok());
  auto* jobs = (*doc.mutable_fields())["jobs"].mutable_list_value();
  for (int i = 0; i < jobs->values_size(); ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "synergy-j-%06d-1", i + 1);
    (*jobs->mutable_values(i)->mutable_struct_value()->mutable_fields())["name"].set_string_value(name);
  }
  std::string out;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(doc, &out).ok());
  return out;
}

struct ExpectedJob {
  int64_t id;
  std::string state;
  JobPhase phase;
  int exit_code;
  int signal;
  int64_t end_unix_s;
  SlurmResources holds;
};

void ExpectJobs(const std::string& file, const std::vector<ExpectedJob>& expected) {
  SCOPED_TRACE(file);
  auto jobs = ParseSqueueJson(AsLeases(SlurmSample(file)));
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const SlurmJob& j = (*jobs)[i];
    const ExpectedJob& e = expected[i];
    EXPECT_EQ(j.id, e.id);
    EXPECT_EQ(j.state, e.state) << j.id;
    EXPECT_EQ(j.phase, e.phase) << j.id;
    EXPECT_EQ(j.exit_code, e.exit_code) << j.id;
    EXPECT_EQ(j.signal, e.signal) << j.id;
    EXPECT_EQ(j.end_unix_s, e.end_unix_s) << j.id;
    EXPECT_EQ(j.holds, e.holds) << j.id;
  }
}

// Slurm 23.02 (data_parser v0.0.39) writes numbers as {set, infinite,
// number}; 23.11 (v0.0.40), 24.05 (v0.0.41) and 24.11 (v0.0.42) also the
// state as a list and the exit as {status, return_code, signal}. Recorded
// outputs of other sites' clusters (tests/data/slurm/SOURCES.md).
TEST(SlurmJson, JobsOfEveryReleasesLayout) {
  const auto P = JobPhase::kPending;
  const auto R = JobPhase::kRunning;
  const auto E = JobPhase::kEnded;
  ExpectJobs("squeue-23.02.json", {{52175550, "PENDING", P, 0, 0, 0, {0, 1, 4096}},
                                   {52173767, "COMPLETED", E, 0, 0, 1694675491, {0, 1, 4096}}});
  ExpectJobs("squeue-23.11-slurmrestd.json", {{776, "TIMEOUT", E, 0, 15, 1747045655, {0, 1, 512}},
                                              {777, "COMPLETED", E, 0, 0, 1747045577, {0, 1, 512}},
                                              {778, "FAILED", E, 1, 0, 1747045580, {0, 1, 512}},
                                              {779, "RUNNING", R, 0, 0, 1747045703, {0, 32, 32 * 512}},
                                              {787, "PENDING", P, 0, 0, 1747045834, {0, 128, 128 * 512}}});
  ExpectJobs("squeue-23.11-slurmrestd-gpu.json", {{795, "RUNNING", R, 0, 0, 1747046375, {1, 2, 1024}}});
  ExpectJobs("squeue-24.05-slurmrestd.json", {{649717, "TIMEOUT", E, 0, 15, 1747754549, {0, 1, 512}},
                                              {649718, "COMPLETED", E, 0, 0, 1747754470, {0, 1, 512}},
                                              {649719, "FAILED", E, 1, 0, 1747754473, {0, 1, 512}},
                                              {649722, "RUNNING", R, 0, 0, 1747754598, {0, 1, 512}},
                                              {649730, "PENDING", P, 0, 0, 1747758154, {0, 64, 64 * 512}}});
  ExpectJobs("squeue-24.05-slurmrestd-gpu.json", {{13, "RUNNING", R, 0, 0, 1762529754, {1, 2, 1024}}});
  ExpectJobs("squeue-24.11-slurmrestd.json", {{6356, "CANCELLED", E, 0, 15, 1762788765, {2, 1, 512}},
                                              {6357, "TIMEOUT", E, 0, 15, 1762788831, {0, 1, 512}},
                                              {6358, "COMPLETED", E, 0, 0, 1762788771, {0, 1, 512}},
                                              {6359, "FAILED", E, 1, 0, 1762788771, {0, 1, 512}},
                                              {6360, "RUNNING", R, 0, 0, 1762788891, {0, 16, 16 * 512}},
                                              {6369, "PENDING", P, 0, 0, 1762789041, {0, 64, 64 * 512}}});
  ExpectJobs("squeue-24.11-slurmrestd-gpu.json", {{6377, "RUNNING", R, 0, 0, 1762788999, {1, 2, 1024}}});
}

// A list state's flags tell the phase as 22.05's one word did.
TEST(SlurmJson, AListStatesFlagsTellThePhase) {
  auto jobs = ParseSqueueJson(R"({"jobs": [
      {"job_id": 1, "user_id": 0, "name": "synergy-j-000001-1", "job_state": ["PENDING", "REQUEUED"]},
      {"job_id": 2, "user_id": 0, "name": "synergy-j-000002-1", "job_state": ["COMPLETED", "COMPLETING"]},
      {"job_id": 3, "user_id": 0, "name": "synergy-j-000003-1", "job_state": ["FAILED", "LAUNCH_FAILED"]}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ((*jobs)[0].phase, JobPhase::kPending);
  EXPECT_EQ((*jobs)[1].phase, JobPhase::kRunning) << "still completing: its processes are not gone";
  EXPECT_EQ((*jobs)[2].phase, JobPhase::kEnded);
  EXPECT_EQ(ParseSqueueJson(R"({"jobs": [{"job_id": 1, "user_id": 0, "name": "synergy-j-000001-1", "job_state": []}]})")
                .status().code(),
            absl::StatusCode::kInvalidArgument);
}

// `sinfo -N --json` of 23.02 and later: records of a node and a partition
// ("sinfo"), not 22.05's "nodes"; `scontrol show nodes --json` of those
// releases keeps "nodes", with the state as a list.
TEST(SlurmJson, NodesOfEveryReleasesLayout) {
  auto one = [](const std::string& file) {
    auto nodes = ParseSinfoJson(SlurmSample(file));
    EXPECT_TRUE(nodes.ok()) << file << ": " << nodes.status();
    return nodes.ok() ? *nodes : std::vector<SlurmNode>{};
  };
  std::vector<SlurmNode> n = one("sinfo-23.02.json");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].name, "localhost");
  EXPECT_EQ(n[0].state, "allocated");
  EXPECT_TRUE(n[0].usable);
  EXPECT_EQ(n[0].cpus, 1);
  EXPECT_EQ(n[0].memory_mb, 1);
  EXPECT_EQ(n[0].allocated, (SlurmResources{0, 1, 1}));
  EXPECT_EQ(n[0].partitions, std::vector<std::string>{"debug"});
  for (const char* file : {"sinfo-24.05-constructed.json", "sinfo-24.11-constructed.json"}) {
    n = one(file);
    ASSERT_EQ(n.size(), 1u) << file;
    EXPECT_EQ(n[0].state, "mixed");
    EXPECT_EQ(n[0].cpus, 64);
    EXPECT_EQ(n[0].memory_mb, 131072);
    EXPECT_EQ(n[0].allocated, (SlurmResources{0, 1, 512}));
  }
  // Without -N a record is a group of nodes: refused, not misread.
  auto grouped = ParseSinfoJson(SlurmSample("sinfo-23.02-grouped.json"));
  ASSERT_FALSE(grouped.ok());
  EXPECT_THAT(std::string(grouped.status().message()), ::testing::HasSubstr("sinfo must be run with -N"));

  n = one("scontrol-nodes-23.11-slurmrestd.json");
  ASSERT_EQ(n.size(), 3u);
  EXPECT_EQ(n[0].state, "idle");
  EXPECT_EQ(n[0].state_flags, std::vector<std::string>{"DRAIN"});
  EXPECT_TRUE(n[0].drained);
  EXPECT_FALSE(n[0].usable);
  EXPECT_TRUE(n[1].usable);
  EXPECT_EQ(n[1].allocated, (SlurmResources{0, 45, 23040}));
  EXPECT_EQ(n[2].gpus, 6);
  EXPECT_EQ(n[2].gpu_type, "") << "two types";
  n = one("scontrol-nodes-24.05-slurmrestd-gpu.json");
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].gpus, 4);
  EXPECT_EQ(n[0].gpu_type, "h100");
  EXPECT_EQ(n[0].allocated.gpus, 4);
  n = one("scontrol-nodes-24.11-slurmrestd.json");
  ASSERT_EQ(n.size(), 3u);
  EXPECT_FALSE(n[0].usable);
  EXPECT_FALSE(n[0].drained) << "down, not drained";
  EXPECT_TRUE(n[1].drained);
  EXPECT_TRUE(n[2].usable) << "idle and completing";
  EXPECT_EQ(one("scontrol-nodes-24.05-slurmrestd-mixed.json")[0].address, "admin.emulator");
  EXPECT_EQ(one("scontrol-nodes-24.11-slurmrestd-mixed.json")[0].allocated, (SlurmResources{0, 1, 512}));
}

// What Slurm has allocated on a node, and what a lease's job holds, as
// 22.05 writes them (gres_used with "(null)" for an untyped GPU).
TEST(SlurmJson, WhatANodeHasAllocatedAndWhatAJobHolds) {
  auto nodes = ParseSinfoJson(R"x({"nodes": [{"name": "x", "state": "mixed", "cpus": 8, "real_memory": 4000,
      "gres": "gpu:4", "gres_used": "gpu:(null):3(IDX:0-2)", "alloc_cpus": 5, "alloc_memory": 1500}]})x");
  ASSERT_TRUE(nodes.ok()) << nodes.status();
  EXPECT_EQ((*nodes)[0].allocated, (SlurmResources{3, 5, 1500}));
  auto jobs = ParseSqueueJson(R"({"jobs": [{"job_id": 1, "user_id": 0, "name": "synergy-j-000001-1",
      "job_state": "RUNNING", "exit_code": 0, "cpus": 3, "memory_per_node": null, "memory_per_cpu": 100,
      "tres_per_node": "gres:gpu:a100:2"}]})");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ((*jobs)[0].holds, (SlurmResources{2, 3, 300}));
}

TEST(SlurmJson, NodesOfARealSinfo) {
  auto nodes = ParseSinfoJson(SlurmSample("sinfo-busy.json"));
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
  auto jobs = ParseSqueueJson(SlurmSample("squeue.json"));
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
