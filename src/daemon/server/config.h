#pragma once
// synergyd's configuration (configs/synergyd.yaml is the embedded default;
// a file given with --config overrides it field by field).
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "node/job_account.h"

namespace synergy::daemon {

// One principal's credential, as configured. The credential itself is kept
// only as its SHA-256 digest (a `token:` in the file is hashed on load).
struct CredentialEntry {
  std::string name;    // user, admin or node name ("" for a join credential)
  std::string tenant;  // users: the tenant their jobs are accounted to
  std::string sha256;  // lower-case hex
};

// A tenant and its GPU quota (auth.tenants; synergy/tenant_quotas.h).
struct TenantConfig {
  std::string name;
  int gpus = 0;         // its jobs hold at most this many GPUs; 0 = no quota
  bool borrow = false;  // may hold more, on GPUs other tenants leave unused
};

// Who may call synergyd (docs/security.md). Each principal has its own
// credential; agents' credentials are minted per lease, not configured.
struct AuthConfig {
  // false ("auth: {mode: none}"): every caller is an admin. Allowed only
  // on a loopback listen address; for a single-user machine.
  bool required = true;
  std::vector<CredentialEntry> users;
  std::vector<CredentialEntry> admins;
  std::vector<CredentialEntry> nodes;
  // Admin-issued: a node not listed in `nodes` registers with one of these
  // once; it is then given a credential of its own, bound to its name.
  std::vector<CredentialEntry> node_join;
  // Tenants with quotas. When any is configured, every user belongs to one
  // of them (users[].tenant), and a job's tenant is one of them.
  std::vector<TenantConfig> tenants;
};

// How synergyd's gRPC port is served.
struct TlsConfig {
  std::string cert;       // PEM certificate chain
  std::string key;        // PEM private key
  // PEM CA bundle for client certificates. When set, clients that present a
  // certificate must present one it signed; with require_node_certificates a
  // node must present one whose common name is its node name.
  std::string client_ca;
  bool require_node_certificates = false;
  // Serve without TLS. Allowed only on a loopback listen address.
  bool plaintext = false;
};

// executor: slurm (docs/slurm.md): Slurm runs the leases.
struct SlurmSettings {
  std::string partition;  // the partition synergyd owns; required
  // Each lease's output: <log_dir>/<job>-<epoch>-<node>.out, written by
  // Slurm on the node (a shared folder, for `synergyctl logs`).
  std::string log_dir = "/var/log/synergy/slurm";
  std::string work_dir;               // where jobs start (--chdir; "" = Slurm's default)
  // How a job's agent reaches synergyd from a Slurm node: its address
  // ("" = listen), the CA it checks synergyd's certificate with, and the
  // name that certificate carries where the address is an IP.
  std::string scheduler;
  std::string tls_ca;
  std::string tls_server_name;
  std::string slurm_conf;             // SLURM_CONF for Slurm's commands ("" = Slurm's default)
  std::string bin_dir = "/usr/bin";   // where sinfo, squeue, sbatch and scancel are
  double command_timeout_s = 30;      // (0, 600]: a command slower than this is killed
  // A lease's Slurm job still PENDING after this is cancelled (Slurm's view
  // of the node differs from synergyd's); its job waits for another lease.
  double max_pending_s = 300;         // [1, 86400]
  // While Slurm cannot be read, nodes and leases are kept as last seen for
  // this long; after it, nodes are left silent and synergyd loses them.
  double stale_limit_s = 600;         // [1, 86400]
  // A submission squeue does not list (yet) counts as gone after this, at
  // least 10 heartbeat intervals.
  double submit_visible_s = 30;       // [1, 86400]
  // The most the executor goes without reading sinfo and squeue when
  // nothing of its own is in flight (slurm/slurm_executor.h): how late a
  // job's own end, a node's change or another user's job can be seen.
  double read_interval_s = 10;        // [0, 3600]; 0 = every heartbeat interval
  // Whose uid a lease's Slurm job runs as (node/job_account.h's rule, as
  // on synergy-node: accounts, allow_root_jobs, run_jobs_as_node_user).
  node::AccountRule accounts;
  // The Slurm account (sbatch --account) and QOS (--qos) each lease's job
  // is charged to: by the job owner's synergyd user, else by the job's
  // tenant; none given, Slurm's default for the uid.
  std::map<std::string, std::string> account_of_user;
  std::map<std::string, std::string> account_of_tenant;
  std::map<std::string, std::string> qos_of_user;
  std::map<std::string, std::string> qos_of_tenant;
  // Variables every lease's job gets unless its spec sets them (sbatch runs
  // with --export=NONE): e.g. PYTHONPATH of a site's Python packages. Not
  // SYNERGY_* (synergyd's own).
  std::map<std::string, std::string> job_env;
};

// Each setting's bounds are checked where it is read: values outside them
// are typing mistakes, or sizes no real cluster has.
struct DaemonConfig {
  std::string listen = "127.0.0.1:50051";         // not empty
  std::string metrics_listen = "127.0.0.1:9464";  // "" = no /metrics
  std::string state_db = "synergyd.db";           // not empty; the SQLite store's file
  // Where the state lives: "sqlite" (state_db, the embedded default) or
  // "postgres" (store_dsn: libpq's "host=... dbname=... user=..." or a
  // postgresql:// URI; keep its password in ~/.pgpass or PGPASSWORD).
  // synergyd.yaml: `store: {kind: sqlite, path: FILE}` or `store: {kind:
  // postgres, dsn: "..."}`; `state_db: FILE` is `store: {kind: sqlite, path:
  // FILE}`.
  std::string store_kind = "sqlite";
  std::string store_dsn;
  // postgres: this synergyd's name as the leader (store.instance; "" the
  // host's name), and how long after the leader's last renewal a standby
  // takes over (store.failover_s, 1 to 300).
  std::string store_instance;
  double store_failover_s = 10;
  double round_s = 300;                           // (0, 86400]
  // Rounds fall on multiples of round_s on the wall clock (UTC) instead of
  // starting when synergyd starts: predictable round times, and what
  // scripts/deploy-vs-sim lines its submissions up with.
  bool align_rounds = false;
  // Launches between rounds (synergy/between_rounds.h): when a job ends,
  // exits, is cancelled, held or released, a lease shrinks, a node joins
  // or is undrained, or a job arrives, the waiting jobs are placed on what
  // is free once the events of launch_debounce_ms are in, without touching
  // running leases. false: only rounds launch (the paper's).
  bool launch_between_rounds = true;
  int launch_debounce_ms = 1000;                  // [0, 60000]
  std::string policy = "fifo";                    // a name PolicyNames() lists
  std::string mechanism = "tune";                 // a name MechanismNames() lists
  // How a round chooses each job's GPU type on a cluster of several
  // (typed_round.h): a name TypeChoiceNames() lists.
  std::string type_choice = "best-allocation";
  std::string models;                             // "" = embedded zoo
  double lease_grace_s = 30;                      // [0, 86400]
  int heartbeat_interval_ms = 1000;               // [1, 60000]
  double heartbeat_timeout_s = 30;                // (0, 86400]
  // Jobs a user (not an admin) may have that have not ended: a flood of
  // submissions fills the store and every list.
  int max_active_jobs_per_user = 1000;
  int max_retries = 2;                            // [0, 100]
  // How long an ended job stays in synergyd's table (get jobs, describe,
  // its events) before it is retired into the history table, where
  // `history` and `describe` still find it, without its events. YAML: a
  // duration, "30d", "12h", "90m", "600s" (1 s to 10 years), or "forever".
  // -1 = forever.
  int64_t retain_ended_jobs_s = 30 * 86400;
  // Jobs' time limits (default_time_limit, max_time_limit: 90m, 2h, 7d;
  // 0 = none): a job that gives none gets the default; one that asks for
  // more than the maximum is refused at submission.
  int64_t default_time_limit_s = 0;
  int64_t max_time_limit_s = 0;
  // Fair share (fair_share_half_life: 7d; 0 = off): within a priority
  // class, jobs of the tenant that used fewest GPU-hours lately (over its
  // quota, where it has one) go first, and within a tenant the user's who
  // used fewest; usage halves every half-life (Slurm's
  // PriorityDecayHalfLife). synergy/tenant_quotas.h.
  int64_t fair_share_half_life_s = 0;
  // How long a job that asks for a profile waits for a whole free node to
  // profile on; after that it is scheduled unprofiled until a round finds
  // it without a lease and a node free. [0, 1e7]
  double profile_wait_s = 600;
  // A running job that checkpoints is restarted for a larger allocation in
  // the same place only when the plan's throughput beats its lease's by
  // this fraction (a restart costs a checkpoint, a relaunch and a warm-up).
  // A job that cannot checkpoint is never restarted to be re-placed. [0, 10]
  double restart_gain = 0.1;
  // What runs the leases: "node" (synergy-node processes register and
  // heartbeat over the node protocol) or "slurm" (synergyd drives a Slurm
  // partition itself, slurm: below; the node protocol's calls are refused).
  std::string executor = "node";
  SlurmSettings slurm;
  AuthConfig auth;
  TlsConfig tls;
  std::string log_level = "info";  // trace | debug | info | warn | error
  std::string log_format = "text";  // text | json (one object a line); UTC, RFC 3339, either way

  // The durations above in milliseconds, by MillisecondsOf.
  int64_t round_ms() const;
  int64_t lease_grace_ms() const;
  int64_t heartbeat_timeout_ms() const;
  int64_t profile_wait_ms() const;
};

// A duration of the config (seconds) in whole milliseconds, rounded to the
// nearest: the one rule every conversion uses.
int64_t MillisecondsOf(double seconds);

// The embedded default, then `file` (if not empty) on top, then the checks
// that need the whole config (ValidateSecurity). Errors have the YAML
// reader's format (synergy/yaml_reader.h), naming the file, line, field and
// value: "synergyd.yaml:4: round_s: '-3': must be > 0 and at most 86400".
// Unknown keys are refused with the list of known ones; `tokens:` (one
// shared token) with a pointer to auth:.
absl::StatusOr<DaemonConfig> LoadDaemonConfig(const std::string& file);

// TLS needs a certificate and key unless tls.plaintext; plain text and
// auth mode none only on a loopback listen address; every credential
// unique. Files are not read here (Daemon::Start reads them).
absl::Status ValidateSecurity(const DaemonConfig& config, const std::string& source);
// `text` named `source` on top of `base`, field by field (an empty text
// changes nothing); no ValidateSecurity.
absl::StatusOr<DaemonConfig> ParseDaemonConfig(const std::string& text, const std::string& source,
                                               DaemonConfig base);

}  // namespace synergy::daemon
