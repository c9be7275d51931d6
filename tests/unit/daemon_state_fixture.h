#pragma once
// The fixture of the DaemonState tests: a state database in a fresh
// directory, and a node, a job spec, a heartbeat and an exit built by hand.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "daemon/state/daemon_state.h"
#include "daemon/state/sqlite_store.h"
#include "gtest/gtest.h"
#include "test_support.h"

namespace synergy::daemon {

class DaemonStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("synergy-state-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
            "-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    config_.state_db = (dir_ / "state.db").string();
    config_.max_retries = 1;
    config_.heartbeat_timeout_s = 3;
    config_.lease_grace_s = 2;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<DaemonState> Open(int64_t now_ms = 0) {
    auto store = SqliteStore::Open(config_.state_db);
    EXPECT_TRUE(store.ok()) << store.status();
    return OpenOn(std::move(*store), now_ms);
  }
  std::unique_ptr<DaemonState> OpenOn(std::unique_ptr<Store> store, int64_t now_ms = 0) {
    auto s = DaemonState::Open(config_, std::move(store), testing::ZooOrDie(), now_ms);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // LAS on one node of 1 GPU, 3 CPUs and 24 GB, with one agent job (res18,
  // 1,000 iterations) granted a lease at 0: a job submitted later takes
  // its place at a round a minute on.
  struct OneLeased {
    std::unique_ptr<DaemonState> s;
    std::string job;
    int64_t epoch = 0;
  };
  OneLeased OneLeasedJobUnderLas() {
    config_.policy = "las";
    OneLeased l;
    l.s = Open();
    AddNode(*l.s, "n1", 1, 3, 24, 0);
    l.job = *l.s->Submit(Spec(1, "res18", 1000), "alice", 0);
    EXPECT_TRUE(l.s->RunRound(0).ok());
    l.epoch = l.s->GetJob(l.job)->lease().epoch();
    return l;
  }

  // LAS on one node of 1 GPU, 3 CPUs and 24 GB, with a plain job granted
  // a lease at 0 and launched; a job of a higher class submitted at 20
  // ends its lease at the round at 60 s (LAS alone does not time-slice a
  // plain process: APlainProcessIsNotTimeSlicedOnlyAHigherClassEndsIt).
  OneLeased PlainJobEndedByAHigherClass() {
    config_.policy = "las";
    OneLeased l;
    l.s = Open();
    AddNode(*l.s, "n1", 1, 3, 24, 0);
    l.job = *l.s->Submit(Spec(1), "alice", 0);
    EXPECT_TRUE(l.s->RunRound(0).ok());
    l.epoch = l.s->GetJob(l.job)->lease().epoch();
    EXPECT_EQ(Beat(*l.s, "n1", 10).launch_size(), 1);
    Beat(*l.s, "n1", 15, {Running(l.job, l.epoch)});  // launched
    v1::JobSpec urgent = Spec(1);
    urgent.set_priority(1);
    *l.s->Submit(urgent, "alice", 20);
    EXPECT_TRUE(l.s->RunRound(60000).ok());
    return l;
  }

  static void AddNode(DaemonState& s, const std::string& name, int gpus, int cpus, double mem, int64_t now_ms,
                      const std::string& gpu_type = "") {
    v1::RegisterNodeRequest r;
    r.set_name(name);
    r.set_address("127.0.0.1");
    for (int i = 0; i < gpus; ++i) r.mutable_resources()->add_gpu_ids(i);
    for (int i = 0; i < cpus; ++i) r.mutable_resources()->add_cpu_ids(i);
    r.mutable_resources()->set_mem_gb(mem);
    r.mutable_resources()->set_gpu_type(gpu_type);
    ASSERT_TRUE(s.RegisterNode(r, now_ms).ok());
  }

  static v1::JobSpec Spec(int gpus, const std::string& model = "", int64_t iterations = 0) {
    v1::JobSpec spec;
    spec.set_gpus(gpus);
    spec.set_model(model);
    spec.set_iterations(iterations);
    spec.set_uses_agent(!model.empty());
    spec.set_max_retries(-1);
    spec.add_command("true");
    return spec;
  }

  // An agent job that asks to be profiled first.
  static v1::JobSpec ProfiledSpec(int gpus, int64_t iterations) {
    v1::JobSpec spec = Spec(gpus, "", iterations);
    spec.set_uses_agent(true);
    spec.set_profile(true);
    return spec;
  }

  // A heartbeat as the node sends it; the daemon may refuse it.
  static absl::StatusOr<v1::HeartbeatResponse> TryBeat(DaemonState& s, const std::string& node, int64_t now_ms,
                                                       std::vector<v1::RunningProcess> running = {},
                                                       std::vector<v1::ProcessExit> exits = {}) {
    v1::HeartbeatRequest r;
    r.set_name(node);
    for (auto& p : running) *r.add_running() = p;
    for (auto& e : exits) *r.add_exits() = e;
    return s.Heartbeat(r, now_ms);
  }
  // A heartbeat the daemon must accept.
  static v1::HeartbeatResponse Beat(DaemonState& s, const std::string& node, int64_t now_ms,
                                    std::vector<v1::RunningProcess> running = {},
                                    std::vector<v1::ProcessExit> exits = {}) {
    auto reply = TryBeat(s, node, now_ms, std::move(running), std::move(exits));
    EXPECT_TRUE(reply.ok()) << reply.status();
    return reply.ok() ? *reply : v1::HeartbeatResponse();
  }

  // A node's report of the process of `job`'s lease `epoch`: what
  // confirms a launch order (nothing is launched before a report shows it).
  static v1::RunningProcess Running(const std::string& job, int64_t epoch) {
    v1::RunningProcess p;
    p.set_job_id(job);
    p.set_epoch(epoch);
    return p;
  }

  static v1::ProcessExit Exit(const std::string& job, int64_t epoch, int code) {
    v1::ProcessExit e;
    e.set_job_id(job);
    e.set_epoch(epoch);
    e.set_exit_code(code);
    e.set_reason("exited with status " + std::to_string(code));
    return e;
  }

  std::filesystem::path dir_;
  DaemonConfig config_;
};

}  // namespace synergy::daemon
