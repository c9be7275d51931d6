// A node fenced from a former leader: synergyd's replies carry the epoch it
// leads a shared state at, and a node obeys no reply older than the newest
// epoch it has seen (a leader that woke from a pause after a standby took
// over). A real NodeAgent against a NodeService on loopback whose replies
// the test sets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "node/node_agent.h"
#include "spdlog/spdlog.h"

namespace synergy {
namespace {

// Answers every registration and heartbeat with what the test set last.
class ScriptedNodeService final : public v1::NodeService::Service {
 public:
  void Set(int64_t epoch, const v1::HeartbeatResponse& heartbeat) {
    std::lock_guard lock(mu_);
    epoch_ = epoch;
    heartbeat_ = heartbeat;
  }
  grpc::Status RegisterNode(grpc::ServerContext*, const v1::RegisterNodeRequest*,
                            v1::RegisterNodeResponse* resp) override {
    std::lock_guard lock(mu_);
    resp->set_heartbeat_interval_ms(1000);
    resp->set_leader_epoch(epoch_);
    return grpc::Status::OK;
  }
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse* resp) override {
    std::lock_guard lock(mu_);
    *resp = heartbeat_;
    resp->set_leader_epoch(epoch_);
    return grpc::Status::OK;
  }

 private:
  std::mutex mu_;
  int64_t epoch_ = 0;
  v1::HeartbeatResponse heartbeat_;
};

class NodeLeaderEpochTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::off);
    dir_ = std::filesystem::temp_directory_path() / ("synergy-node-epoch-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(port, 0);
    node::NodeConfig config;
    config.name = "n1";
    config.scheduler = "127.0.0.1:" + std::to_string(port);
    config.plaintext = true;
    config.run_jobs_as_node_user = true;
    config.allow_root_jobs = true;
    config.log_dir = (dir_ / "logs").string();
    config.work_dir = dir_.string();
    config.state_dir = (dir_ / "state").string();
    node::NodeOffer offer;
    offer.name = "n1";
    offer.gpu_ids = {0};
    offer.gpus_declared = true;
    offer.cpu_ids = {0, 1};
    offer.memory_gb = 4;
    auto channel = grpc::CreateChannel(config.scheduler, grpc::InsecureChannelCredentials());
    agent_ = std::make_unique<node::NodeAgent>(config, offer, std::make_unique<node::ProcessLauncher>(node::Cgroups()),
                                               "none", channel, [channel] { return channel; });
  }
  void TearDown() override {
    agent_.reset();
    server_->Shutdown();
    std::filesystem::remove_all(dir_);
  }
  // A heartbeat reply that launches a job writing `marker`.
  v1::HeartbeatResponse Launching(const std::string& job_id, const std::filesystem::path& marker) const {
    v1::HeartbeatResponse r;
    v1::LaunchOrder* launch = r.add_launch();
    launch->set_job_id(job_id);
    launch->set_epoch(1);
    launch->add_command("/bin/sh");
    launch->add_command("-c");
    launch->add_command("touch " + marker.string());
    launch->add_gpu_ids(0);
    launch->add_cpu_ids(0);
    launch->set_mem_gb(1);
    return r;
  }
  static bool AppearsWithin(const std::filesystem::path& file, std::chrono::milliseconds limit) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (std::filesystem::exists(file)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::filesystem::exists(file);
  }

  std::filesystem::path dir_;
  ScriptedNodeService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<node::NodeAgent> agent_;
};

TEST_F(NodeLeaderEpochTest, AReplyFromAFormerLeaderIsNotObeyedAndTheNewLeadersIs) {
  service_.Set(5, {});
  ASSERT_TRUE(agent_->Step());  // registers with the leader of epoch 5
  ASSERT_TRUE(agent_->Step());  // a heartbeat
  // The leader of epoch 4 woke from a pause and orders a launch.
  const std::filesystem::path stale = dir_ / "stale-launch";
  service_.Set(4, Launching("j-000001", stale));
  EXPECT_FALSE(agent_->Step());
  EXPECT_FALSE(AppearsWithin(stale, std::chrono::milliseconds(500))) << "a former leader's launch was obeyed";
  // The leader of epoch 6 (a later takeover) is obeyed.
  const std::filesystem::path current = dir_ / "current-launch";
  service_.Set(6, Launching("j-000002", current));
  EXPECT_TRUE(agent_->Step());
  EXPECT_TRUE(AppearsWithin(current, std::chrono::seconds(5)));
}

TEST_F(NodeLeaderEpochTest, ASingleWriterAtEpochZeroIsAlwaysObeyed) {
  service_.Set(0, {});
  ASSERT_TRUE(agent_->Step());
  const std::filesystem::path launched = dir_ / "launched";
  service_.Set(0, Launching("j-000001", launched));
  EXPECT_TRUE(agent_->Step());
  EXPECT_TRUE(AppearsWithin(launched, std::chrono::seconds(5)));
}

}  // namespace
}  // namespace synergy
