// Clients given several synergyd addresses (a leader and its standbys):
// how the list is read, and that a client whose call a standby refuses
// reaches the leader on the next address.
#include <gtest/gtest.h>

#include <filesystem>

#include "daemon/server/server.h"
#include "daemon/server/standby.h"
#include "service/channel.h"
#include "spdlog/spdlog.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace synergy {
namespace {

TEST(SplitTargets, AListIsSplitAtCommasAndAGrpcSchemeKeepsItsOwnList) {
  auto two = service::SplitTargets("a:50051, b:50051", "scheduler");
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(*two, (std::vector<std::string>{"a:50051", "b:50051"}));
  auto one = service::SplitTargets("ipv4:127.0.0.1:1,127.0.0.2:2", "scheduler");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(*one, (std::vector<std::string>{"ipv4:127.0.0.1:1,127.0.0.2:2"}));
  auto empty_entry = service::SplitTargets("a:1,,b:2", "scheduler");
  EXPECT_EQ(empty_entry.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(empty_entry.status().message().find("scheduler: 'a:1,,b:2' has an empty address"), std::string::npos)
      << empty_entry.status();
  EXPECT_FALSE(service::SplitTargets("", "scheduler").ok());
}

TEST(LeaderChannels, EveryAddressIsCheckedAtOpenAndNextGoesRoundTheList) {
  service::ChannelSecurity plain;
  plain.plaintext = true;
  // A credential in clear text to the second address is refused at once,
  // not when a failover reaches it.
  auto leaky = service::LeaderChannels::Open("127.0.0.1:1,10.0.0.1:2", "scheduler", plain, true);
  EXPECT_EQ(leaky.status().code(), absl::StatusCode::kFailedPrecondition) << leaky.status();
  auto channels = service::LeaderChannels::Open("127.0.0.1:1,127.0.0.1:2", "scheduler", plain, true);
  ASSERT_TRUE(channels.ok()) << channels.status();
  EXPECT_EQ((*channels)->current_target(), "127.0.0.1:1");
  const auto first = (*channels)->current();
  EXPECT_NE((*channels)->Next(), first);
  EXPECT_EQ((*channels)->current_target(), "127.0.0.1:2");
  (*channels)->Next();
  EXPECT_EQ((*channels)->current_target(), "127.0.0.1:1");
}

class StandbyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    dir_ = std::filesystem::temp_directory_path() / ("synergy-standby-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    config_.listen = "127.0.0.1:0";
    config_.metrics_listen = "";
    config_.state_db = (dir_ / "state.db").string();
    config_.tls.plaintext = true;
    config_.auth.required = false;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static grpc::Status ClusterState(const std::shared_ptr<grpc::Channel>& channel) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::ClusterState state;
    return v1::SchedulerService::NewStub(channel)->GetClusterState(&ctx, {}, &state);
  }
  std::filesystem::path dir_;
  daemon::DaemonConfig config_;
};

TEST_F(StandbyTest, AStandbyRefusesEveryCallNamingTheLeaderAndAClientMovesOnToTheLeader) {
  auto leader = daemon::Daemon::Start(config_);
  ASSERT_TRUE(leader.ok()) << leader.status();
  daemon::DaemonConfig standby_config = config_;
  standby_config.store_instance = "b";
  auto standby = daemon::Standby::Serve(standby_config, "synergyd 'a' leads (epoch 7)");
  ASSERT_TRUE(standby.ok()) << standby.status();
  service::ChannelSecurity plain;
  plain.plaintext = true;
  auto channels = service::LeaderChannels::Open(
      "127.0.0.1:" + std::to_string((*standby)->port()) + ",127.0.0.1:" + std::to_string((*leader)->port()),
      "scheduler", plain, false);
  ASSERT_TRUE(channels.ok()) << channels.status();
  const grpc::Status refused = ClusterState((*channels)->current());
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(refused.error_message().find("synergyd 'b' is a standby"), std::string::npos) << refused.error_message();
  EXPECT_NE(refused.error_message().find("synergyd 'a' leads (epoch 7)"), std::string::npos) << refused.error_message();
  (*standby)->SetReason("synergyd 'a' leads (epoch 8)");
  EXPECT_NE(ClusterState((*channels)->current()).error_message().find("epoch 8"), std::string::npos);
  EXPECT_TRUE(ClusterState((*channels)->Next()).ok());
  // Stopped (it takes over): its address is free for the new leader.
  const int port = (*standby)->port();
  (*standby)->Stop();
  daemon::DaemonConfig taking_over = config_;
  taking_over.listen = "127.0.0.1:" + std::to_string(port);
  taking_over.state_db = (dir_ / "other.db").string();
  auto next_leader = daemon::Daemon::Start(taking_over);
  ASSERT_TRUE(next_leader.ok()) << next_leader.status();
  (*next_leader)->Shutdown();
  (*leader)->Shutdown();
}

}  // namespace
}  // namespace synergy
