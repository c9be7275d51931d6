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
  (*o.mutable_env())["SLURM_CONF"] = "/home/alice/evil.conf";  // the job's, not sbatch's
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
  auto call = SbatchFor(Order(), "gpu-07", JobIdentity{1001, 1002, "alice"}, Options());
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->argv, (std::vector<std::string>{
                            "sbatch", "--parsable", "--job-name=synergy-j-000012-7", "--partition=synergy",
                            "--nodelist=gpu-07", "--nodes=1", "--ntasks=1", "--cpus-per-task=3", "--mem=12800M",
                            "--gres=gpu:2", "--uid=1001", "--gid=1002", "--no-requeue", "--export=NONE",
                            "--output=/var/log/synergy/alice/gpu-07/j-000012.7.out",
                            "--error=/var/log/synergy/alice/gpu-07/j-000012.7.err"}));
  // sbatch runs with the executor's fixed environment only: the lease's
  // (LD_PRELOAD, SBATCH_*, its own SLURM_CONF) could change what sbatch
  // does.
  EXPECT_EQ(call->env, (std::vector<std::string>{"SLURM_CONF=/etc/slurm/slurm.conf", "PATH=/usr/bin:/bin"}));
  // The lease's variables reach the job through the script, in name order.
  EXPECT_EQ(call->script.substr(0, call->script.find("exec '")),
            "#!/bin/sh\n"
            "export PATH='/usr/local/bin:/usr/bin:/bin'\n"
            "export DATA='/data/a,b'\n"
            "export SLURM_CONF='/home/alice/evil.conf'\n"
            "export SYNERGY_AGENT_TOKEN='lease-secret'\n"
            "export SYNERGY_JOB_ID='j-000012'\n");
}

// A site charges GPU time to Slurm accounts and QOS: the owner's entry,
// else the tenant's, else none (Slurm's default for the uid).
TEST(SbatchFor, TheAccountAndQosFollowTheOwnerElseTheTenant) {
  SbatchOptions opt = Options();
  opt.account = {{{"alice", "physics"}}, {{"vision", "cv-lab"}}};
  opt.qos = {{}, {{"vision", "high"}}};
  v1::LaunchOrder order = Order();
  order.set_tenant("vision");
  auto argv = [&](const v1::LaunchOrder& o) {
    auto call = SbatchFor(o, "gpu-07", JobIdentity{1001, 1002, "alice"}, opt);
    EXPECT_TRUE(call.ok()) << call.status();
    return call.ok() ? call->argv : std::vector<std::string>{};
  };
  auto has = [](const std::vector<std::string>& a, const std::string& arg) {
    return std::find(a.begin(), a.end(), arg) != a.end();
  };
  std::vector<std::string> a = argv(order);
  EXPECT_TRUE(has(a, "--account=physics"));
  EXPECT_TRUE(has(a, "--qos=high"));
  order.set_user("bob");
  a = argv(order);
  EXPECT_TRUE(has(a, "--account=cv-lab")) << "bob has no entry: his tenant's";
  order.set_tenant("");
  a = argv(order);
  EXPECT_EQ(std::count_if(a.begin(), a.end(), [](const std::string& x) { return x.rfind("--account", 0) == 0 ||
                                                                             x.rfind("--qos", 0) == 0; }), 0);
}

// The batch script hands sh every variable and argument as it was: quotes,
// $, `, newlines and all.
TEST(SbatchFor, TheEnvironmentAndCommandReachTheProcessWordForWord) {
  v1::LaunchOrder order = Order();
  order.mutable_command(0)->assign("/bin/sh");
  order.mutable_command(1)->assign("-c");
  order.mutable_command(2)->assign("printf '[%s][%s][%s]' \"$DATA\" \"$MULTI\" \"$0\"");
  order.add_command("it's \"quoted\" $HOME `x`");
  (*order.mutable_env())["MULTI"] = "line one\nline 'two'";
  auto call = SbatchFor(order, "n", JobIdentity{1001, 1001, "alice"}, Options());
  ASSERT_TRUE(call.ok()) << call.status();
  const std::string path = ::testing::TempDir() + "/sbatch_script.sh";
  std::ofstream(path) << call->script;
  FILE* out = popen(("env -i /bin/sh " + path).c_str(), "r");
  ASSERT_NE(out, nullptr);
  char buf[512];
  std::string got;
  while (fgets(buf, sizeof buf, out) != nullptr) got += buf;
  ASSERT_EQ(pclose(out), 0);
  EXPECT_EQ(got, "[/data/a,b][line one\nline 'two'][it's \"quoted\" $HOME `x`]");
}

TEST(SbatchFor, WhatCannotBeASlurmJobIsRefusedNamingTheField) {
  const auto refusal = [](const v1::LaunchOrder& order, int64_t uid = 1001) {
    auto call = SbatchFor(order, "n", JobIdentity{uid, uid, "alice"}, Options());
    return call.ok() ? std::string("accepted") : std::string(call.status().message());
  };
  v1::LaunchOrder no_command = Order();
  no_command.clear_command();
  EXPECT_EQ(refusal(no_command), "launch of j-000012 lease 7: command: empty");
  v1::LaunchOrder option = Order();
  option.set_command(0, "-a");
  EXPECT_EQ(refusal(option), "launch of j-000012 lease 7: command[0]: '-a': is not a program sh execs");
  EXPECT_EQ(refusal(Order(), 0), "launch of j-000012 lease 7: uid 0: not a job's account (root is not allowed)");
  SbatchOptions root = Options();
  root.allow_root_jobs = true;
  EXPECT_TRUE(SbatchFor(Order(), "n", JobIdentity{0, 0, "root"}, root).ok());
  for (const std::string folder : {"", ".", "..", "a/b"}) {
    auto call = SbatchFor(Order(), "n", JobIdentity{1001, 1001, folder}, Options());
    EXPECT_FALSE(call.ok()) << "folder '" << folder << "'";
  }
  v1::LaunchOrder bad_env = Order();
  (*bad_env.mutable_env())["A-B"] = "x";
  EXPECT_EQ(refusal(bad_env), "launch of j-000012 lease 7: env: 'A-B': is not a variable name sh passes on");
  v1::LaunchOrder dos = Order();
  dos.set_command(1, "train.py\r\n");
  EXPECT_EQ(refusal(dos), "launch of j-000012 lease 7: command[1]: has a carriage return");
  v1::LaunchOrder dos_env = Order();
  (*dos_env.mutable_env())["DATA"] = "a\r\nb";
  EXPECT_EQ(refusal(dos_env), "launch of j-000012 lease 7: env[DATA]: has a carriage return");
}

TEST(ResourcesOfSlurmNode, NeverMoreGpusThanCpus) {
  SlurmNode node;
  node.name = "thin";
  node.gpus = 4;
  node.cpus = 2;
  node.memory_mb = 4096;
  EXPECT_EQ(ResourcesOfSlurmNode(node).gpu_ids_size(), 2) << "else a 1-GPU slice would get 0 CPUs";
  node.cpus = 0;
  EXPECT_EQ(ResourcesOfSlurmNode(node).gpu_ids_size(), 0);
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
