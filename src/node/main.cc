// synergy-node: registers this server with synergyd and runs the job
// processes it is told to.
//   synergy-node [--config FILE] [--name NAME] [--scheduler HOST:PORT] [--log-format text|json] [--version]
// Exit status 2 on a bad config or flag.
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "node/cgroups.h"
#include "node/node_agent.h"
#include "node/orphans.h"
#include "service/auth.h"
#include "service/channel.h"
#include "service/http_endpoint.h"
#include "service/logging.h"
#include "spdlog/spdlog.h"
#include "synergy/version.h"

namespace {

constexpr const char* kUsage =
    "usage: synergy-node [--config FILE] [--name NAME] [--scheduler HOST:PORT] [--log-format text|json] [--version]\n";

// What the command line sets over the config file.
struct Flags {
  std::string config_file, name, scheduler, log_format;
};

// The flags into `f`; -1, or the exit code (--version, --help, a bad flag).
int ReadFlags(int argc, char** argv, Flags& f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--config" || a == "--name" || a == "--scheduler" || a == "--log-format") && i + 1 < argc) {
      (a == "--config" ? f.config_file : a == "--name" ? f.name : a == "--scheduler" ? f.scheduler : f.log_format) =
          argv[++i];
    } else if (a == "--version") {
      std::cout << synergy::VersionLine("synergy-node") << "\n";
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "synergy-node: unknown flag '" << a << "'\n" << kUsage;
      return 2;
    }
  }
  return -1;
}

// The config with the flags and SYNERGY_TOKEN over it, its credentials
// checked, logging set up; an error says what is wrong.
absl::StatusOr<synergy::node::NodeConfig> ConfigOf(const Flags& f) {
  auto config = synergy::node::LoadNodeConfig(f.config_file);
  if (!config.ok()) return config.status();
  if (!f.name.empty()) config->name = f.name;
  if (!f.scheduler.empty()) config->scheduler = f.scheduler;
  if (!f.log_format.empty()) config->log_format = f.log_format;
  if (config->token.empty() && std::getenv("SYNERGY_TOKEN")) config->token = std::getenv("SYNERGY_TOKEN");
  for (const auto& [value, field] : {std::pair<const std::string&, const char*>{config->token, "token"},
                                     {config->join_token, "join_token"}}) {
    if (auto st = synergy::service::ValidateCredentialText(value, field); !st.ok()) return st;
  }
  if (config->token.empty() && config->join_token.empty()) {
    return absl::InvalidArgumentError(
        "no credential: set token (or SYNERGY_TOKEN), or join_token with credential_file (docs/security.md)");
  }
  return config;
}

synergy::service::ChannelSecurity SecurityOf(const synergy::node::NodeConfig& config) {
  synergy::service::ChannelSecurity security;
  security.plaintext = config.plaintext;
  security.ca_file = config.tls_ca;
  security.cert_file = config.tls_cert;
  security.key_file = config.tls_key;
  security.server_name = config.tls_server_name;
  return security;
}

// /metrics, /healthz (the process answers) and /readyz (registered and
// heard from) on metrics_listen.
absl::Status ServeMetrics(synergy::service::HttpEndpoint& http, const synergy::node::NodeAgent& agent,
                          const std::string& node_name, const std::string& listen) {
  http.Handle("/metrics", [&agent, node_name] {
    return synergy::service::HttpReply{
        200, synergy::node::RenderNodeMetrics(agent.stats(), node_name, synergy::service::NowUnixMs()),
        synergy::service::kPrometheusTextType};
  });
  http.Handle("/healthz", [] { return synergy::service::HttpReply{200, "ok\n"}; });
  http.Handle("/readyz", [&agent] {
    std::string why;
    return synergy::node::NodeReady(agent.stats(), synergy::service::NowUnixMs(), &why)
               ? synergy::service::HttpReply{200, "ready\n"}
               : synergy::service::HttpReply{503, why + "\n"};
  });
  auto port = http.Start(listen, "metrics_listen");
  if (!port.ok()) return port.status();
  spdlog::info("synergy-node: metrics on {}", listen);
  return absl::OkStatus();
}

// Runs the node until SIGINT or SIGTERM (blocked in every thread, taken
// by one of its own), then it leaves.
void RunUntilSignalled(synergy::node::NodeAgent& agent, sigset_t set) {
  // Static: the detached thread may outlive this call (Run can end without
  // a signal) and must not write to a stack that is gone.
  static std::atomic<bool> stop{false};
  std::thread signals([set] {
    int sig = 0;
    sigwait(&set, &sig);
    spdlog::info("synergy-node: {} received, shutting down", strsignal(sig));
    stop = true;
  });
  signals.detach();
  agent.Run(stop);
}

int Fail(const std::string& what) {
  std::cerr << "synergy-node: " << what << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (const int rc = ReadFlags(argc, argv, flags); rc >= 0) return rc;
  // SIGINT and SIGTERM are taken by a thread of their own (below), so that
  // the node leaves cleanly. Blocked before any other thread exists (gRPC
  // starts some with the channel): a thread without the mask would take
  // the signal's default action and end the node on the spot.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  auto config = ConfigOf(flags);
  if (!config.ok()) return Fail(std::string(config.status().message()));
  const synergy::service::ChannelSecurity security = SecurityOf(*config);
  // Reconnect within a second of synergyd coming back: its leases wait
  // only heartbeat_timeout_s to be re-adopted.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Several addresses (a leader and its standbys): a call that finds one
  // unavailable moves on to the next (service::LeaderChannels).
  auto channels = synergy::service::LeaderChannels::Open(config->scheduler, "scheduler", security, true, args);
  if (!channels.ok()) return Fail("scheduler: " + std::string(channels.status().message()));
  if (absl::Status st = synergy::service::ConfigureLogging("synergy-node", config->log_format, config->log_level);
      !st.ok()) {
    return Fail(std::string(st.message()));
  }
  auto offer = synergy::node::Discover(*config);
  if (!offer.ok()) return Fail(std::string(offer.status().message()));
  synergy::node::Cgroups cgroups = synergy::node::Cgroups::Detect("/sys/fs/cgroup", "/sys/fs/cgroup", "/proc/self/cgroup",
                                                                 offer->cores_per_cpu > 0);
  const std::string described = cgroups.Describe();
  auto records = std::make_unique<synergy::node::LeaseRecords>(config->state_dir, offer->name);
  if (absl::Status st = records->Open(); !st.ok()) return Fail(std::string(st.message()));
  // Before any new work: what an earlier synergy-node of this name left
  // running (it was killed or crashed) is stopped, never run beside a copy.
  std::vector<synergy::v1::ProcessExit> orphans =
      synergy::node::StopOrphans(*records, cgroups, offer->name, getpid(), std::chrono::seconds(5));
  auto launcher = std::make_unique<synergy::node::ProcessLauncher>(
      std::move(cgroups), offer->name + "." + std::to_string(getpid()));
  synergy::node::NodeAgent agent(
      *config, *offer, std::move(launcher), described, (*channels)->current(),
      [channels = *channels] { return channels->Next(); },
      std::move(records));
  agent.ReportAtStart(std::move(orphans));
  synergy::service::HttpEndpoint http;
  if (!config->metrics_listen.empty()) {
    if (absl::Status st = ServeMetrics(http, agent, offer->name, config->metrics_listen); !st.ok()) {
      return Fail(std::string(st.message()));
    }
  }
  RunUntilSignalled(agent, set);
  http.Stop();
  return 0;
}
