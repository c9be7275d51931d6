// A lease's launch as one sbatch on its node, and Slurm's nodes as the
// resources a node registers (slurm/slurm_launch.h).
#include "slurm/slurm_launch.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "gtest/gtest.h"

namespace synergy::slurm {
namespace {

v1::LaunchOrder Order() {
  v1::LaunchOrder o;
  o.set_job_id("j-000012");
  o.set_epoch(7);
  o.add_command("/usr/bin/python3");
  o.add_command("train.py");
  o.add_command("--name=it's \"quoted\" $HOME `x`");
  (*o.mutable_env())["SYNERGY_JOB_ID"] = "j-000012";
  (*o.mutable_env())["SYNERGY_AGENT_TOKEN"] = "lease-secret";
  (*o.mutable_env())["DATA"] = "/data/a,b";
  o.add_gpu_ids(0);
  o.add_gpu_ids(3);
  for (int c : {4, 5, 6}) o.add_cpu_ids(c);
  o.set_mem_gb(12.5);
  o.set_user("alice");
  return o;
}

SbatchOptions Options() {
  SbatchOptions opt;
  opt.partition = "synergy";
  opt.log_dir = "/var/log/synergy";
  opt.slurm_env = {{"SLURM_CONF", "/etc/slurm/slurm.conf"}, {"PATH", "/usr/bin:/bin"}};
  return opt;
}

TEST(SbatchFor, TheLeaseOnItsNodeWithItsGpusCpusMemoryAndOwner) {
  auto call = SbatchFor(Order(), "gpu-07", Options());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->argv, (std::vector<std::string>{
                            "sbatch", "--parsable", "--job-name=synergy-j-000012-7", "--partition=synergy",
                            "--nodelist=gpu-07", "--nodes=1", "--ntasks=1", "--cpus-per-task=3", "--mem=12800M",
                            "--gres=gpu:2", "--uid=alice", "--export=ALL",
                            "--output=/var/log/synergy/j-000012-7-gpu-07.out"}));
  // Exactly the lease's environment and what sbatch needs: nothing of
  // synergyd's own.
  std::vector<std::string> env = call->env;
  std::sort(env.begin(), env.end());
  EXPECT_EQ(env, (std::vector<std::string>{"DATA=/data/a,b", "PATH=/usr/bin:/bin", "SLURM_CONF=/etc/slurm/slurm.conf",
                                           "SYNERGY_AGENT_TOKEN=lease-secret", "SYNERGY_JOB_ID=j-000012"}));
}

// The batch script hands sh every argument as it was, quotes, $, ` and all.
TEST(SbatchFor, TheCommandReachesItsProcessWordForWord) {
  v1::LaunchOrder order = Order();
  order.mutable_command(0)->assign("printf");
  order.mutable_command(1)->assign("[%s]\\n");
  auto call = SbatchFor(order, "n", Options());
  ASSERT_TRUE(call.ok()) << call.status();
  const std::string path = ::testing::TempDir() + "/sbatch_script.sh";
  std::ofstream(path) << call->script;
  FILE* out = popen(("/bin/sh " + path).c_str(), "r");
  ASSERT_NE(out, nullptr);
  char buf[512];
  std::string got;
  while (fgets(buf, sizeof buf, out) != nullptr) got += buf;
  ASSERT_EQ(pclose(out), 0);
  EXPECT_EQ(got, "[--name=it's \"quoted\" $HOME `x`]\n");
  EXPECT_EQ(call->script.rfind("#!/bin/sh\nexec 'printf' ", 0), 0u) << call->script;
}

TEST(SbatchFor, WhatCannotBeASlurmJobIsRefusedNamingTheField) {
  v1::LaunchOrder no_command = Order();
  no_command.clear_command();
  EXPECT_EQ(SbatchFor(no_command, "n", Options()).status().message(), "launch of j-000012 lease 7: command: empty");
  v1::LaunchOrder no_user = Order();
  no_user.clear_user();
  EXPECT_EQ(SbatchFor(no_user, "n", Options()).status().message(), "launch of j-000012 lease 7: user: empty");
  SbatchOptions not_owner = Options();
  not_owner.as_owner = false;
  auto call = SbatchFor(no_user, "n", not_owner);
  ASSERT_TRUE(call.ok());
  for (const std::string& a : call->argv) EXPECT_EQ(a.rfind("--uid", 0), std::string::npos);
  v1::LaunchOrder bad_env = Order();
  (*bad_env.mutable_env())["A-B"] = "x";
  EXPECT_EQ(SbatchFor(bad_env, "n", Options()).status().message(),
            "launch of j-000012 lease 7: env: 'A-B': is not a variable name sh passes on");
}

TEST(ResourcesOfSlurmNode, CountsFromSlurmAndTheTypeItsGresNames) {
  SlurmNode node;
  node.name = "gpu-07";
  node.cpus = 64;
  node.memory_mb = 512000;
  node.gpus = 8;
  node.gpu_type = "a100";
  const v1::NodeResources r = ResourcesOfSlurmNode(node);
  EXPECT_EQ(r.gpu_ids_size(), 8);
  EXPECT_EQ(r.gpu_ids(7), 7);
  EXPECT_EQ(r.cpu_ids_size(), 64);
  EXPECT_DOUBLE_EQ(r.mem_gb(), 500);
  EXPECT_EQ(r.gpu_type(), "a100");
  node.gpu_type = "Tesla_V100";  // not a type name synergyd takes
  EXPECT_EQ(ResourcesOfSlurmNode(node).gpu_type(), "");
}

}  // namespace
}  // namespace synergy::slurm
