// For tests/integration/slurm_cluster.sh: the sbatch call SbatchFor builds
// for one lease's launch, written out so that the test runs it on a real
// Slurm. usage: slurm_sbatch_for OUT_DIR NODE PARTITION LOG_DIR SLURM_CONF
// Writes OUT_DIR/argv and OUT_DIR/env (NUL-separated) and OUT_DIR/script.
#include <fstream>
#include <iostream>
#include <string>

#include "slurm/slurm_launch.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: slurm_sbatch_for OUT_DIR NODE PARTITION LOG_DIR SLURM_CONF\n";
    return 2;
  }
  const std::string out = argv[1];
  synergy::v1::LaunchOrder order;
  order.set_job_id("j-000042");
  order.set_epoch(3);
  order.add_command("/bin/sh");
  order.add_command("-c");
  order.add_command(
      "grep Cpus_allowed_list /proc/self/status; echo \"uid=$(id -u) job=$SYNERGY_JOB_ID data=$DATA "
      "secret=${SYNERGY_TEST_SECRET:-none}\"; echo \"arg=$0\"");
  order.add_command("it's \"one\" $word");
  (*order.mutable_env())["SYNERGY_JOB_ID"] = "j-000042";
  (*order.mutable_env())["DATA"] = "a b,'c'";
  order.add_gpu_ids(0);
  order.add_cpu_ids(0);
  order.set_mem_gb(0.25);
  order.set_user("root");
  synergy::slurm::SbatchOptions options;
  options.partition = argv[3];
  options.log_dir = argv[4];
  options.slurm_env = {{"SLURM_CONF", argv[5]}, {"PATH", "/usr/bin:/bin"}};
  options.allow_root_jobs = true;  // the test machine's only account
  auto call = synergy::slurm::SbatchFor(order, argv[2], synergy::slurm::JobIdentity{0, 0, "root"}, options);
  if (!call.ok()) {
    std::cerr << call.status().message() << "\n";
    return 1;
  }
  std::ofstream a(out + "/argv"), e(out + "/env"), s(out + "/script");
  for (const std::string& x : call->argv) a << x << '\0';
  for (const std::string& x : call->env) e << x << '\0';
  s << call->script;
  return 0;
}
