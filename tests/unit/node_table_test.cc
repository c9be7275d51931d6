// The node table (daemon/state/node_table.h): a stored drain outlives
// registrations, an undone registration leaves no node behind, and only
// nodes alive, undrained and staying take part.
#include "daemon/state/node_table.h"

#include "daemon/round/round_input.h"
#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

v1::RegisterNodeRequest Request(const std::string& name, int gpus) {
  v1::RegisterNodeRequest r;
  r.set_name(name);
  for (int g = 0; g < gpus; ++g) r.mutable_resources()->add_gpu_ids(g);
  return r;
}

TEST(NodeTable, ARegistrationRecordsWhatOtherWorkHoldsThere) {
  NodeTable nodes;
  v1::RegisterNodeRequest r = Request("sn1", 4);
  r.mutable_foreign()->set_gpus(1);
  bool known = false;
  nodes.Open();
  nodes.Register(r, 10, known);
  nodes.Keep();
  EXPECT_EQ(nodes.at("sn1").info.foreign().gpus(), 1);
}

// Other work's share is taken from ids no lease holds, the highest first;
// where leases hold the rest, less is taken (the plan cannot free them).
TEST(WithoutForeign, TakesTheHighestIdsNoLeaseHoldsAndTheMemory) {
  v1::NodeResources ids;
  for (int g = 0; g < 4; ++g) ids.add_gpu_ids(g);
  for (int c = 0; c < 8; ++c) ids.add_cpu_ids(c);
  ids.set_mem_gb(32);
  v1::ForeignUse foreign;
  foreign.set_gpus(2);
  foreign.set_cpus(3);
  foreign.set_mem_gb(40);
  const v1::NodeResources left = WithoutForeign(ids, foreign, /*kept_gpus=*/{3}, /*kept_cpus=*/{});
  EXPECT_EQ(std::vector<int>(left.gpu_ids().begin(), left.gpu_ids().end()), (std::vector<int>{0, 3}));
  EXPECT_EQ(std::vector<int>(left.cpu_ids().begin(), left.cpu_ids().end()), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(left.mem_gb(), 0);
  foreign.set_gpus(4);
  const v1::NodeResources held = WithoutForeign(ids, foreign, {1, 2}, {});
  EXPECT_EQ(std::vector<int>(held.gpu_ids().begin(), held.gpu_ids().end()), (std::vector<int>{1, 2}));
  EXPECT_EQ(WithoutForeign(ids, v1::ForeignUse(), {}, {}).SerializeAsString(), ids.SerializeAsString());
}

TEST(NodeTable, AStoredDrainOutlivesRegistrations) {
  NodeTable nodes;
  nodes.Restore({{"n1", NodeDrain{true, "fan failing", 50}}}, {});
  bool known = true;
  nodes.Register(Request("n1", 2), 100, known);
  EXPECT_FALSE(known);
  EXPECT_TRUE(nodes.at("n1").info.drained());
  EXPECT_EQ(nodes.at("n1").info.drain_reason(), "fan failing");
  EXPECT_EQ(nodes.at("n1").info.drained_unix_ms(), 50);
  EXPECT_FALSE(nodes.TakesPart("n1"));
  nodes.SetDrained("n1", NodeDrain{});
  EXPECT_EQ(nodes.at("n1").info.drain_reason(), "");
  nodes.Register(Request("n1", 2), 200, known);
  EXPECT_TRUE(known);
  EXPECT_TRUE(nodes.TakesPart("n1"));
}

TEST(NodeTable, AnUndoneRegistrationLeavesNoNode) {
  NodeTable nodes;
  nodes.Open();
  bool known = false;
  nodes.Register(Request("n1", 4), 100, known);
  nodes.Undo();
  EXPECT_EQ(nodes.count("n1"), 0u);
  EXPECT_EQ(nodes.TotalGpus(), 0);
  EXPECT_FALSE(nodes.TakesPart("n1"));
}

TEST(NodeTable, SilentNodesAreAliveOnesPastTheTimeout) {
  NodeTable nodes;
  bool known = false;
  nodes.Register(Request("quiet", 1), 100, known);
  nodes.Register(Request("talking", 1), 900, known);
  nodes.Register(Request("gone", 1), 100, known);
  nodes.Edit("gone").info.set_alive(false);
  EXPECT_EQ(nodes.Silent(1000, 500), std::vector<std::string>{"quiet"});
  nodes.Edit("talking").info.set_leaving(true);
  EXPECT_FALSE(nodes.TakesPart("talking"));
  EXPECT_EQ(nodes.TotalGpus(), 3);
}

TEST(NodeTable, AJoinIsRemembered) {
  NodeTable nodes;
  nodes.Restore({}, {{"old", 5}});
  EXPECT_TRUE(nodes.Joined("old"));
  EXPECT_FALSE(nodes.Joined("new"));
  nodes.NoteJoined("new", 10);
  EXPECT_TRUE(nodes.Joined("new"));
}

}  // namespace
}  // namespace synergy::daemon
