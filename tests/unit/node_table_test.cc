// The node table (daemon/node_table.h): a stored drain outlives
// registrations, an undone registration leaves no node behind, and only
// nodes alive, undrained and staying take part.
#include "daemon/node_table.h"

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

v1::RegisterNodeRequest Request(const std::string& name, int gpus) {
  v1::RegisterNodeRequest r;
  r.set_name(name);
  for (int g = 0; g < gpus; ++g) r.mutable_resources()->add_gpu_ids(g);
  return r;
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
