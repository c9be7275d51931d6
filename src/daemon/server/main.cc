// synergyd: the Synergy scheduler daemon.
//   synergyd [--config FILE] [--log-format text|json] [--version]
// Without --config the embedded configs/synergyd.yaml is used. Exit status
// 2 on a bad config or flag, or when its port or state database is taken
// (one daemon per state and port); 1 when it cannot start otherwise.
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <cstring>
#include <iostream>
#include <thread>

#include "daemon/server/server.h"
#include "daemon/server/standby.h"
#include "service/logging.h"
#include "spdlog/spdlog.h"
#include "synergy/version.h"

namespace {

int Usage(const std::string& why) {
  std::cerr << "synergyd: " << why << "\nusage: synergyd [--config FILE] [--log-format text|json] [--version]\n";
  return 2;
}

// Everything synergyd writes (the state database and its WAL, which hold
// the credential key and jobs' environments) is its own account's only;
// and every client costs a descriptor (gRPC 1.51 stops accepting for good
// once accept() fails with EMFILE), so it takes all the descriptors allowed.
void PrepareProcess() {
  umask(077);
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

// The signals that end synergyd, blocked in every thread: a thread of its
// own takes them, so shutdown runs outside a signal handler. SIGHUP (a
// closed terminal, a reload by habit) must not end the scheduler: it is
// logged and ignored, since nothing is re-read. A file-size limit reached
// while writing the state is a failed commit (EFBIG), like a full disk, not
// the end of the scheduler: SIGXFSZ is ignored.
sigset_t BlockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGXFSZ, SIG_IGN);
  return set;
}

// On PostgreSQL, a synergyd that finds another leading is its standby
// (standby.h: it answers on its addresses, naming the leader): it tries
// again every second and takes over once it has seen the leader's lease
// unrenewed for store.failover_s less a second (postgres_store.h,
// LeaseSighting, StandbyWaitMs),
// freeing the addresses just before it binds them as the leader. While the
// database cannot be reached it waits on (and forgets what it saw). False
// when a shutdown signal came first; otherwise `daemon` is the started
// daemon or why not.
bool WaitAsStandby(const synergy::daemon::DaemonConfig& config, const sigset_t& set,
                   synergy::daemon::LeaseSighting& sighting,
                   absl::StatusOr<std::unique_ptr<synergy::daemon::Daemon>>& daemon) {
  using synergy::daemon::Daemon;
  std::unique_ptr<synergy::daemon::Standby> standby;
  Daemon::Takeover takeover{&sighting, [&] {
                              standby->Stop();
                              standby.reset();
                            }};
  auto waits = [&] {
    const absl::StatusCode code = daemon.status().code();
    return config.store_kind == "postgres" && (code == absl::StatusCode::kAlreadyExists ||
                                               (standby && code == absl::StatusCode::kUnavailable));
  };
  bool waited = false;
  while (!daemon.ok() && waits()) {
    const std::string why(daemon.status().message());
    if (daemon.status().code() == absl::StatusCode::kUnavailable) sighting = {};
    if (!standby) {
      spdlog::info("synergyd: standby: {}", why);
      auto serving = synergy::daemon::Standby::Serve(config, why);
      if (!serving.ok()) {
        daemon = serving.status();
        return true;
      }
      standby = std::move(*serving);
    }
    standby->SetReason(why);
    const timespec look{synergy::daemon::kStandbyLookMs / 1000, (synergy::daemon::kStandbyLookMs % 1000) * 1000000};
    siginfo_t info;
    if (sigtimedwait(&set, &info, &look) > 0 && info.si_signo != SIGHUP) {
      spdlog::info("synergyd: {} received as a standby, stopping", strsignal(info.si_signo));
      return false;
    }
    daemon = Daemon::Start(config, takeover);
    waited = true;
  }
  if (waited && daemon.ok()) spdlog::info("synergyd: the standby took the state over");
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_file, log_format;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      config_file = argv[++i];
    } else if (a == "--log-format" && i + 1 < argc) {
      log_format = argv[++i];
    } else if (a == "--version") {
      std::cout << synergy::VersionLine("synergyd") << "\n";
      return 0;
    } else if (a == "--help" || a == "-h") {
      std::cout << "usage: synergyd [--config FILE] [--log-format text|json] [--version]   (default: the embedded configs/synergyd.yaml)\n";
      return 0;
    } else {
      return Usage("unknown flag '" + a + "'");
    }
  }
  PrepareProcess();
  auto config = synergy::daemon::LoadDaemonConfig(config_file);
  if (!config.ok()) {
    std::cerr << "synergyd: " << config.status().message() << "\n";
    return 2;
  }
  if (!log_format.empty()) config->log_format = log_format;
  if (absl::Status st = synergy::service::ConfigureLogging("synergyd", config->log_format, config->log_level); !st.ok()) {
    return Usage(std::string(st.message()));
  }
  const sigset_t set = BlockShutdownSignals();
  // What this synergyd sees of another's lease, from its first look: a
  // synergyd started while the database was down does not take over the
  // moment it returns, before the leader has had a chance to renew.
  synergy::daemon::LeaseSighting sighting;
  auto daemon = synergy::daemon::Daemon::Start(*config, {&sighting, {}});
  if (!daemon.ok() && !WaitAsStandby(*config, set, sighting, daemon)) return 0;  // stopped as a standby
  if (!daemon.ok()) {
    std::cerr << "synergyd: " << daemon.status().message() << "\n";
    return daemon.status().code() == absl::StatusCode::kAlreadyExists ? 2 : 1;
  }
  std::thread signals([&] {
    int sig = 0;
    while (sigwait(&set, &sig) == 0 && sig == SIGHUP) {
      spdlog::warn("synergyd: SIGHUP received and ignored: the config is read only at start; restart to change it");
    }
    spdlog::info("synergyd: {} received, shutting down", strsignal(sig));
    (*daemon)->Shutdown();
  });
  signals.detach();
  (*daemon)->Wait();
  // Stepped down (another took the state over): non-zero, so that systemd
  // (Restart=on-failure) starts it again, as a standby.
  return (*daemon)->stepped_down() ? 3 : 0;
}
