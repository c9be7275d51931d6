#include "slurm/slurm_launch.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "service/escape.h"
#include "synergy/config_loader.h"

namespace synergy::slurm {
namespace {

bool IsEnvName(const std::string& name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

v1::NodeResources ResourcesOfSlurmNode(const SlurmNode& node) {
  v1::NodeResources r;
  for (int g = 0; g < node.gpus; ++g) r.add_gpu_ids(g);
  for (int c = 0; c < node.cpus; ++c) r.add_cpu_ids(c);
  r.set_mem_gb(static_cast<double>(node.memory_mb) / 1024);
  if (IsGpuTypeName(node.gpu_type)) r.set_gpu_type(node.gpu_type);
  return r;
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

absl::StatusOr<SbatchCall> SbatchFor(const v1::LaunchOrder& order, const std::string& node,
                                     const SbatchOptions& options) {
  const std::string lease = absl::StrCat("launch of ", order.job_id(), " lease ", order.epoch());
  if (order.command_size() == 0) return absl::InvalidArgumentError(lease + ": command: empty");
  if (options.as_owner && order.user().empty()) return absl::InvalidArgumentError(lease + ": user: empty");
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
  // Whole MB, at least 1: Slurm counts memory in MB.
  a.push_back(absl::StrCat("--mem=", std::max<int64_t>(1, std::llround(order.mem_gb() * 1024)), "M"));
  if (order.gpu_ids_size() > 0) a.push_back(absl::StrCat("--gres=gpu:", order.gpu_ids_size()));
  if (options.as_owner) a.push_back("--uid=" + order.user());
  a.push_back("--export=ALL");
  a.push_back(absl::StrCat("--output=", options.log_dir, "/", order.job_id(), "-", order.epoch(), "-", node, ".out"));
  for (const auto& [name, value] : order.env()) {
    if (!IsEnvName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(lease, ": env: ", service::QuoteForMessage(name), ": is not a variable name sh passes on"));
    }
    call.env.push_back(name + "=" + value);
  }
  for (const auto& [name, value] : options.slurm_env) {
    if (!order.env().contains(name)) call.env.push_back(name + "=" + value);
  }
  call.script = "#!/bin/sh\nexec";
  for (const std::string& arg : order.command()) call.script += " " + ShellQuote(arg);
  call.script += "\n";
  return call;
}

}  // namespace synergy::slurm
