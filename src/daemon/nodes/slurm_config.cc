#include "daemon/nodes/slurm_config.h"

#include "absl/strings/str_cat.h"
#include "service/request_limits.h"
#include "slurm/slurm_launch.h"

namespace synergy::daemon {
namespace {

// Slurm's names: a partition is one word of the characters Slurm allows in
// its names, so that it reads the same on sbatch's command line.
bool IsSlurmName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '-') return false;
  for (unsigned char ch : name) {
    if (!std::isalnum(ch) && ch != '_' && ch != '-' && ch != '.') return false;
  }
  return true;
}

// A user or tenant name as synergyd gives them (service/names.h rules
// are stricter; this only keeps a typing mistake from matching nothing).
// `key`: a map of user (or tenant) names to Slurm account (or QOS) names;
// an error names the entry (slurm.account_of_user.alice).
absl::Status ReadCharges(const YamlMap& m, const char* key, std::map<std::string, std::string>& out) {
  if (!m.Has(key)) return absl::OkStatus();
  absl::StatusOr<std::vector<std::pair<std::string, YamlValue>>> entries = m.Get(key).OpenMap(4096);
  if (!entries.ok()) return entries.status();
  std::map<std::string, std::string> charges;
  for (const auto& [name, value] : *entries) {
    // The rule of `accounts`' user names (node/job_account.h); a tenant's
    // is the same (kMaxTenantBytes).
    if (!node::IsAccountLikeName(name, false)) {
      return value.Error("the key is not a user or tenant name (1-64 characters of A-Z a-z 0-9 . _ @ -)");
    }
    absl::StatusOr<std::string> charge = value.String(64);
    if (!charge.ok()) return charge.status();
    if (!IsSlurmName(*charge)) return value.Error("is not a Slurm name (1-64 characters of A-Z a-z 0-9 _ - .)");
    charges[name] = *charge;
  }
  out = std::move(charges);
  return absl::OkStatus();
}

// job_env: NAME: value, each name one sh passes on and not synergyd's own.
absl::Status ReadJobEnv(const YamlMap& m, std::map<std::string, std::string>& out) {
  if (!m.Has("job_env")) return absl::OkStatus();
  absl::StatusOr<std::vector<std::pair<std::string, YamlValue>>> entries = m.Get("job_env").OpenMap(256);
  if (!entries.ok()) return entries.status();
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : *entries) {
    // As sbatch's script exports the lease's variables (slurm_launch.h).
    if (name.size() > 128 || !slurm::IsEnvName(name)) {
      return value.Error("the key is not a variable name sh passes on ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (name.rfind("SYNERGY_", 0) == 0) return value.Error("SYNERGY_* variables are synergyd's own");
    absl::StatusOr<std::string> text = value.String(service::kMaxPathBytes * 4);
    if (!text.ok()) return text.status();
    if (text->find_first_of(std::string("\r\0", 2)) != std::string::npos) {
      return value.Error("has a carriage return or a NUL");
    }
    env[name] = *text;
  }
  out = std::move(env);
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseSlurmSection(const YamlValue& section, SlurmSettings& out) {
  absl::StatusOr<YamlMap> m = section.Map({"partition", "log_dir", "work_dir", "scheduler", "tls_ca", "tls_server_name", "slurm_conf", "bin_dir", "command_timeout_s",
                                           "max_pending_s", "stale_limit_s", "submit_visible_s", "read_interval_s",
                                           "accounts", "allow_root_jobs", "run_jobs_as_node_user",
                                           "account_of_user", "account_of_tenant", "qos_of_user", "qos_of_tenant",
                                           "job_env"});
  if (!m.ok()) return m.status();
  absl::Status st;
  st.Update(m->Read("partition", out.partition, 64));
  st.Update(m->Read("log_dir", out.log_dir, service::kMaxPathBytes));
  st.Update(m->Read("work_dir", out.work_dir, service::kMaxPathBytes));
  st.Update(m->Read("scheduler", out.scheduler, service::kMaxNodeAddressBytes));
  st.Update(m->Read("tls_ca", out.tls_ca, service::kMaxPathBytes));
  st.Update(m->Read("tls_server_name", out.tls_server_name, service::kMaxNodeNameBytes));
  st.Update(m->Read("slurm_conf", out.slurm_conf, service::kMaxPathBytes));
  st.Update(m->Read("bin_dir", out.bin_dir, service::kMaxPathBytes));
  st.Update(m->Read("command_timeout_s", out.command_timeout_s, DoubleRange::Positive(600)));
  // A day at most: longer is a typing mistake. At least a second (a
  // lease's job takes that to be listed or to start).
  st.Update(m->Read("max_pending_s", out.max_pending_s, DoubleRange{1, 86400}));
  st.Update(m->Read("stale_limit_s", out.stale_limit_s, DoubleRange{1, 86400}));
  st.Update(m->Read("submit_visible_s", out.submit_visible_s, DoubleRange{1, 86400}));
  st.Update(m->Read("read_interval_s", out.read_interval_s, DoubleRange{0, 3600}));
  st.Update(node::ReadAccounts(*m, out.accounts.accounts));
  st.Update(m->Read("allow_root_jobs", out.accounts.allow_root_jobs));
  st.Update(m->Read("run_jobs_as_node_user", out.accounts.run_jobs_as_node_user));
  for (const auto& [key, charges] : {std::pair{"account_of_user", &out.account_of_user},
                                     std::pair{"account_of_tenant", &out.account_of_tenant},
                                     std::pair{"qos_of_user", &out.qos_of_user},
                                     std::pair{"qos_of_tenant", &out.qos_of_tenant}}) {
    st.Update(ReadCharges(*m, key, *charges));
  }
  st.Update(ReadJobEnv(*m, out.job_env));
  if (!st.ok()) return st;
  if (m->Has("command_timeout_s") && out.command_timeout_s < 0.1) {
    return m->Get("command_timeout_s").Error("must be at least 0.1");
  }
  if (m->Has("partition") && !out.partition.empty() && !IsSlurmName(out.partition)) {
    return m->Get("partition").Error("is not a Slurm partition name (1-64 characters of A-Z a-z 0-9 _ - .)");
  }
  for (const char* key : {"log_dir", "bin_dir"}) {
    const std::string& path = std::string(key) == "log_dir" ? out.log_dir : out.bin_dir;
    if (m->Has(key) && (path.empty() || path[0] != '/')) return m->Get(key).Error("is not an absolute path");
  }
  for (const char* key : {"slurm_conf", "work_dir", "tls_ca"}) {
    const std::string& path = std::string(key) == "slurm_conf" ? out.slurm_conf
                              : std::string(key) == "work_dir" ? out.work_dir
                                                               : out.tls_ca;
    if (m->Has(key) && !path.empty() && path[0] != '/') return m->Get(key).Error("is not an absolute path");
  }
  return absl::OkStatus();
}

}  // namespace synergy::daemon
