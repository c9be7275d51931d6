// Keeping running jobs on their servers (synergy/sticky_servers.h), and
// synergyd's rule for what a lease holds (daemon/round/sticky_servers.h): the
// same GPUs, CPUs and memory, or the same GPUs for a lease that follows
// resizes, which is then resized where it runs instead of moved.
#include "daemon/round/sticky_servers.h"

#include "daemon/round/round_input.h"
#include "gtest/gtest.h"
#include "synergy/sticky_servers.h"

namespace synergy {
namespace {

Cluster TwoServers() {
  return Cluster({ServerSpec{"a", Resources{8, 24, 500, 0}}, ServerSpec{"b", Resources{8, 24, 500, 0}}});
}

Plan OneJobOn(int server, double cpus) {
  Plan plan;
  Assignment a;
  a.job = 1;
  a.slices.push_back(Slice{server, Resources{1, cpus, 62.5, 0}});
  plan.assignments.push_back(a);
  return plan;
}

TEST(StickToCurrentServers, SwapsIdenticalServersSoARunningJobStays) {
  const Cluster cluster = TwoServers();
  Plan plan = OneJobOn(1, 3);
  const int moved = StickToCurrentServers(plan, cluster, [](JobId, int server, const Slice&) { return server == 0; });
  EXPECT_EQ(moved, 2);
  EXPECT_EQ(plan.assignments[0].slices[0].server, 0);
  Plan unheld = OneJobOn(1, 3);
  EXPECT_EQ(StickToCurrentServers(unheld, cluster, [](JobId, int, const Slice&) { return false; }), 0);
  EXPECT_EQ(unheld.assignments[0].slices[0].server, 1);
}

// A server of the same capacity but another GPU type is not the same
// server: the plan chose the type.
TEST(StickToCurrentServers, NeverSwapsServersOfDifferentGpuTypes) {
  std::vector<ServerSpec> servers = {ServerSpec{"a", Resources{8, 24, 500, 0}},
                                     ServerSpec{"b", Resources{8, 24, 500, 0}}};
  servers[0].gpu_type = "k80";
  servers[1].gpu_type = "v100";
  const Cluster cluster(servers);
  Plan plan = OneJobOn(1, 3);
  EXPECT_EQ(StickToCurrentServers(plan, cluster, [](JobId, int server, const Slice&) { return server == 0; }), 0);
  EXPECT_EQ(plan.assignments[0].slices[0].server, 1);
}

TEST(StickToCurrentNodes, AResizableLeaseStaysWhereItRunsWithOtherCpus) {
  const Cluster cluster = TwoServers();
  const std::vector<std::string> names = {"a", "b"};
  v1::Lease lease;
  lease.set_job_id(daemon::JobIdString(1));
  lease.set_epoch(3);
  v1::LeaseSlice* s = lease.add_slices();
  s->set_node("a");
  s->add_gpu_ids(0);
  s->add_cpu_ids(0);
  s->add_cpu_ids(1);
  s->set_mem_gb(62.5);
  const std::map<std::string, const v1::Lease*> current = {{lease.job_id(), &lease}};
  Plan fixed = OneJobOn(1, 3);  // other CPUs, the other node
  EXPECT_EQ(daemon::StickToCurrentNodes(fixed, cluster, names, current), 0)
      << "a lease that cannot resize does not hold 3 CPUs anywhere";
  EXPECT_EQ(fixed.assignments[0].slices[0].server, 1);
  lease.set_resizable(true);
  Plan resizable = OneJobOn(1, 3);
  EXPECT_EQ(daemon::StickToCurrentNodes(resizable, cluster, names, current), 2);
  EXPECT_EQ(resizable.assignments[0].slices[0].server, 0) << "resized where it runs";
}

}  // namespace
}  // namespace synergy
