#include "slurm/slurm_launch.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "service/escape.h"
#include "synergy/config_loader.h"

namespace synergy::slurm {
bool IsEnvName(const std::string& name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

v1::NodeResources ResourcesOfSlurmNode(const SlurmNode& node) {
  v1::NodeResources r;
  // Every GPU's share holds at least one CPU: a slice of 0 CPUs would ask
  // Slurm for --cpus-per-task=1 that the plan did not count, and wait in
  // its queue. A node with fewer CPUs than GPUs offers as many GPUs as CPUs.
  const int gpus = std::min(node.gpus, node.cpus);
  for (int g = 0; g < gpus; ++g) r.add_gpu_ids(g);
  for (int c = 0; c < node.cpus; ++c) r.add_cpu_ids(c);
  r.set_mem_gb(static_cast<double>(node.memory_mb) / 1024);
  if (IsGpuTypeName(node.gpu_type)) r.set_gpu_type(node.gpu_type);
  return r;
}

std::string ChargeOf(const SbatchOptions::Charges& charges, const std::string& user, const std::string& tenant) {
  if (auto it = charges.of_user.find(user); it != charges.of_user.end()) return it->second;
  if (tenant.empty()) return "";
  auto it = charges.of_tenant.find(tenant);
  return it == charges.of_tenant.end() ? "" : it->second;
}

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

namespace {

// A command sh can exec: not empty, not an option, no carriage return in
// any argument (the script is read line by line). `lease` names the launch.
absl::Status CheckCommand(const v1::LaunchOrder& order, const std::string& lease) {
  if (order.command_size() == 0) return absl::InvalidArgumentError(lease + ": command: empty");
  if (order.command(0).empty() || order.command(0)[0] == '-') {
    return absl::InvalidArgumentError(absl::StrCat(lease, ": command[0]: ", service::QuoteForMessage(order.command(0)),
                                                   ": is not a program sh execs"));
  }
  for (int i = 0; i < order.command_size(); ++i) {
    if (order.command(i).find('\r') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(lease, ": command[", i, "]: has a carriage return"));
    }
  }
  return absl::OkStatus();
}

// The batch script: a PATH to find the command by (the spec's env may set
// its own), the lease's variables in name order, then the command, each
// word quoted for sh.
absl::StatusOr<std::string> BatchScript(const v1::LaunchOrder& order, const std::string& lease) {
  std::string script = "#!/bin/sh\nexport PATH='/usr/local/bin:/usr/bin:/bin'\n";
  std::vector<std::pair<std::string, std::string>> env(order.env().begin(), order.env().end());
  std::sort(env.begin(), env.end());
  for (const auto& [name, value] : env) {
    if (!IsEnvName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(lease, ": env: ", service::QuoteForMessage(name), ": is not a variable name sh passes on"));
    }
    if (value.find('\r') != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(lease, ": env[", name, "]: has a carriage return"));
    }
    script += "export " + name + "=" + ShellQuote(value) + "\n";
  }
  script += "exec";
  for (const std::string& arg : order.command()) script += " " + ShellQuote(arg);
  script += "\n";
  return script;
}

}  // namespace

absl::StatusOr<SbatchCall> SbatchFor(const v1::LaunchOrder& order, const std::string& node, const JobIdentity& who,
                                     const SbatchOptions& options) {
  const int64_t uid = who.uid;
  const std::string lease = absl::StrCat("launch of ", order.job_id(), " lease ", order.epoch());
  if (absl::Status st = CheckCommand(order, lease); !st.ok()) return st;
  if (uid < 0 || (uid == 0 && !options.allow_root_jobs)) {
    return absl::InvalidArgumentError(absl::StrCat(lease, ": uid ", uid, ": not a job's account (root is not allowed)"));
  }
  SbatchCall call;
  std::vector<std::string>& a = call.argv;
  a.push_back("sbatch");
  a.push_back("--parsable");
  a.push_back("--job-name=" + SlurmJobName(order.job_id(), order.epoch()));
  if (!options.partition.empty()) a.push_back("--partition=" + options.partition);
  a.push_back("--nodelist=" + node);
  a.push_back("--nodes=1");
  a.push_back("--ntasks=1");
  a.push_back(absl::StrCat("--cpus-per-task=", std::max(1, order.cpu_ids_size())));
  // Whole MB, at least 1, rounded down: Slurm counts memory in MB, and
  // leases planned to fill a node exactly must fit in it together.
  a.push_back(absl::StrCat("--mem=", std::max<int64_t>(1, static_cast<int64_t>(std::floor(order.mem_gb() * 1024 + 1e-6))), "M"));
  if (order.gpu_ids_size() > 0) a.push_back(absl::StrCat("--gres=gpu:", order.gpu_ids_size()));
  a.push_back(absl::StrCat("--uid=", uid));
  a.push_back(absl::StrCat("--gid=", who.gid));
  if (std::string account = ChargeOf(options.account, order.user(), order.tenant()); !account.empty()) {
    a.push_back("--account=" + account);
  }
  if (std::string qos = ChargeOf(options.qos, order.user(), order.tenant()); !qos.empty()) a.push_back("--qos=" + qos);
  a.push_back("--no-requeue");
  a.push_back("--export=NONE");
  if (!options.work_dir.empty()) a.push_back("--chdir=" + options.work_dir);
  // As synergy-node writes them (node/job_output.h), in the account's
  // folder, a folder per node: synergyd reads them for `synergyctl logs`.
  if (who.folder.empty() || who.folder == "." || who.folder == ".." ||
      who.folder.find('/') != std::string::npos || who.folder.find('\0') != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(lease, ": output folder ", service::QuoteForMessage(who.folder), ": not one path component"));
  }
  const std::string stem =
      absl::StrCat(options.log_dir, "/", who.folder, "/", node, "/", order.job_id(), ".", order.epoch());
  a.push_back(absl::StrCat("--output=", stem, ".out"));
  a.push_back(absl::StrCat("--error=", stem, ".err"));
  for (const auto& [name, value] : options.slurm_env) call.env.push_back(name + "=" + value);
  absl::StatusOr<std::string> script = BatchScript(order, lease);
  if (!script.ok()) return script.status();
  call.script = *std::move(script);
  return call;
}

}  // namespace synergy::slurm
