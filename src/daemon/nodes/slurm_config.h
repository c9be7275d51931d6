#pragma once
// The `slurm:` section of synergyd.yaml, read when `executor: slurm`
// (docs/slurm.md):
//
//   executor: slurm
//   slurm:
//     partition: synergy          # the partition synergyd owns (required)
//     log_dir: /shared/synergy/slurm-logs
//     work_dir: /shared/synergy/work   # where jobs start ("" = Slurm's default)
//     scheduler: synergyd.example:50051  # how jobs' agents reach synergyd ("" = listen)
//     tls_ca: /etc/synergy/tls/ca.crt    # the CA they check synergyd with
//     tls_server_name: ""         # the name synergyd's certificate carries
//     slurm_conf: ""              # SLURM_CONF for sinfo, squeue, sbatch, scancel
//     bin_dir: /usr/bin
//     command_timeout_s: 30
//     read_interval_s: 10         # sinfo/squeue at least this often (and on events)
//     accounts: {alice: alice_hpc}  # user -> local account, as on synergy-node
//     allow_root_jobs: false
//     run_jobs_as_node_user: false
//     account_of_user: {alice: physics}    # sbatch --account, by synergyd user
//     account_of_tenant: {vision: cv-lab}  # ... else by the job's tenant
//     qos_of_user: {}                      # sbatch --qos, the same way
//     qos_of_tenant: {}
//     job_env: {PYTHONPATH: /opt/site/python}  # every job's unless its spec sets it
//
// The section overlays `out` field by field. Errors have the YAML reader's
// format, naming the file, line, field and value.
#include "absl/status/status.h"
#include "daemon/server/config.h"
#include "synergy/yaml_reader.h"

namespace synergy::daemon {

absl::Status ParseSlurmSection(const YamlValue& section, SlurmSettings& out);

}  // namespace synergy::daemon
