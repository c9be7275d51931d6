#include "daemon/server/server.h"

#include <malloc.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cmath>
#include <optional>

#include <chrono>

#include "daemon/server/leader_metrics.h"
#include "daemon/server/listener_watchdog.h"
#include "daemon/state/sqlite_store.h"
#include "daemon/server/transport.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/auth.h"
#include "service/metrics_text.h"
#include "service/tls_check.h"
#include "spdlog/spdlog.h"
#include "synergy/config_loader.h"
#include "synergy/default_configs.h"

namespace synergy::daemon {

namespace {

// The store the config names (DaemonConfig::store_kind).
absl::StatusOr<std::unique_ptr<Store>> OpenStore(const DaemonConfig& config, LeaseSighting* sighting) {
  if (config.store_kind == "postgres") {
    PostgresLeadership leadership;
    leadership.sighting = sighting;
    leadership.instance = config.store_instance;
    leadership.lease_ms = static_cast<int64_t>(config.store_failover_s * 1000);
    auto pg = PostgresStore::Open(config.store_dsn, leadership);
    if (!pg.ok()) return pg.status();
    return std::unique_ptr<Store>(std::move(*pg));
  }
  auto sqlite = SqliteStore::Open(config.state_db);
  if (!sqlite.ok()) return sqlite.status();
  return std::unique_ptr<Store>(std::move(*sqlite));
}

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::Start(const DaemonConfig& config, const Takeover& takeover) {
  std::unique_ptr<Daemon> d(new Daemon());
  d->config_ = config;
  // Its certificate first: an expired one, or a key that is not its key,
  // is refused with what to do, not found by the first client.
  auto serving = CheckServingFiles(config.tls, service::NowUnixMs() / 1000);
  if (!serving.ok()) return serving.status();
  if (*serving) d->cert_not_after_s_ = (*serving)->not_after_unix_s;
  d->WarnIfCertificateExpiresSoon();
  auto zoo = config.models.empty() ? DefaultModelZoo() : LoadModelZooFile(config.models);
  if (!zoo.ok()) return zoo.status();
  absl::StatusOr<std::unique_ptr<Store>> store = OpenStore(config, takeover.sighting);
  if (!store.ok()) return store.status();
  const std::string store_name = (*store)->path();
  auto state = DaemonState::Open(config, std::move(*store), std::move(*zoo), service::NowUnixMs());
  if (!state.ok()) return state.status();
  // What is read without the lock, taken before the state is behind it:
  // the authenticator and board (thread-safe, fixed from here on) and the
  // store's refusals (/readyz; an atomic).
  DaemonState* const opened = state->get();
  d->guarded_.authenticator = &opened->authenticator();
  d->guarded_.board = &opened->progress_board();
  d->state_ = std::move(*state);
  d->guarded_.state = opened;
  d->guarded_.logs = &d->log_relay_;
  d->guarded_.fenced = [opened] { return opened->store_fenced(); };
  d->scheduler_ = std::make_unique<SchedulerServiceImpl>(d->guarded_);
  d->node_ = std::make_unique<NodeServiceImpl>(d->guarded_);
  d->agent_ = std::make_unique<AgentServiceImpl>(d->guarded_);
  if (takeover.before_serving) takeover.before_serving();
  if (auto st = d->StartServer(config.listen); !st.ok()) return st;
  // Before the metrics endpoint, whose /readyz and /metrics read it.
  if (config.executor == "slurm") {
    auto slurm = SlurmExecutorLoop::Start(config, d->guarded_,
                                          [raw = d.get()] { return raw->next_round_unix_ms_.load(); });
    if (!slurm.ok()) return slurm.status();
    d->slurm_ = std::move(*slurm);
  }
  if (!config.metrics_listen.empty()) {
    if (auto st = d->ServeMetrics(opened); !st.ok()) return st;
  }
  spdlog::info("synergyd: serving on {} (port {}, {}), metrics on {}, state {}, {} / {}, round {} s",
               config.listen, d->port_,
               config.tls.plaintext ? "plain text" : config.tls.client_ca.empty() ? "TLS" : "TLS, client certificates", config.metrics_listen.empty() ? "off" : config.metrics_listen,
               store_name, config.policy, config.mechanism, config.round_s);
  if (auto leading = opened->store_leadership()) {
    spdlog::info("synergyd: '{}' leads the state at epoch {} ({} takeover(s) between instances so far)",
                 leading->instance, leading->epoch, leading->takeovers);
  }
  d->loop_ = std::thread([raw = d.get()] { raw->RoundLoop(); });
  d->listener_watch_ = std::thread([raw = d.get()] { raw->WatchListener(); });
  return d;
}

absl::Status Daemon::ServeMetrics(const DaemonState* opened) {
  last_tick_ms_ = service::NowUnixMs();  // the round loop starts after
  const std::optional<Store::Leadership> leading = opened->store_leadership();
  // Once fenced (stepping down), it reports itself a standby.
  auto leader_lines = [leading, opened] {
    if (!leading) return std::string();
    return LeaderMetrics(leading->instance, opened->store_fenced() ? std::nullopt : leading);
  };
  metrics_.Handle("/metrics", [this, leader_lines] {
    absl::ReaderMutexLock lock(&guarded_.mu);
    return service::HttpReply{200,
                              absl::StrCat(RenderMetrics(*state_, service::NowUnixMs()),
                                           "# HELP synergy_listener_rebuilds_total gRPC listeners rebuilt after "
                                           "they stopped accepting (listener_watchdog.h)\n"
                                           "# TYPE synergy_listener_rebuilds_total counter\n"
                                           "synergy_listener_rebuilds_total ",
                                           listener_rebuilds_.load(), "\n", SlurmMetrics(), leader_lines(),
                                           CertificateMetrics()),
                              service::kPrometheusTextType};
  });
  // Live while the round loop ticks (every 100 ms; a loop stuck for 30 s
  // is worth a restart); ready while it ticks and the daemon is not
  // stopping. Neither takes the daemon's lock.
  auto ticked_within = [this](int64_t ms) {
    return service::NowUnixMs() - last_tick_ms_.load() <= ms;
  };
  metrics_.Handle("/healthz", [ticked_within] {
    return ticked_within(30000) ? service::HttpReply{200, "ok\n"}
                                : service::HttpReply{503, "the round loop has not ticked for 30 s\n"};
  });
  metrics_.Handle("/readyz", [this, opened, ticked_within] {
    if (stop_.HasBeenNotified()) return service::HttpReply{503, "stopping\n"};
    if (opened->store_fenced()) return service::HttpReply{503, "another synergyd leads the state now\n"};
    // Nothing is acted on before it is stored: a daemon whose store
    // refuses writes takes no submission and changes no lease.
    if (const int64_t refused = opened->store_refusing(); refused > 0) {
      return service::HttpReply{503, absl::StrCat("the state store refuses writes (", refused,
                                                  " change(s) refused in a row)\n")};
    }
    if (const int64_t since = slurm_ ? slurm_->unreadable_since_ms() : 0; since > 0) {
      return service::HttpReply{503, absl::StrCat("Slurm cannot be read for ", (service::NowUnixMs() - since) / 1000,
                                                  " s (slurmctld?): nodes and leases are kept as last seen\n")};
    }
    return ticked_within(5000) ? service::HttpReply{200, "ready\n"}
                               : service::HttpReply{503, "the round loop has not ticked for 5 s\n"};
  });
  auto port = metrics_.Start(config_.metrics_listen, "metrics_listen");
  if (!port.ok()) return port.status();
  metrics_port_ = *port;
  return absl::OkStatus();
}

std::string Daemon::CertificateMetrics() const {
  if (cert_not_after_s_ == 0) return "";
  service::MetricsText m;
  m.Gauge("synergy_tls_cert_expiry_seconds",
          "Seconds until synergyd's TLS certificate (tls.cert) expires; negative once it has.",
          static_cast<double>(cert_not_after_s_ - service::NowUnixMs() / 1000));
  return m.Take();
}

absl::Status Daemon::StartServer(const std::string& listen) {
  auto credentials = ServerCredentialsFor(config_.tls);
  if (!credentials.ok()) return credentials.status();
  grpc::ServerBuilder builder;
  // One daemon per address: gRPC sets SO_REUSEPORT by default, and a second
  // synergyd would silently take half of the calls.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.SetMaxReceiveMessageSize(kMaxReceiveMessageBytes);
  // Anyone on the network can open connections: one that does not finish
  // its TLS handshake is dropped, a connection carries a bounded number of
  // calls at once, one idle for kMaxConnectionIdleMs is closed (its
  // client reconnects when it needs to), and all of them together hold a
  // bounded amount of memory.
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, kHandshakeTimeoutMs);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, kMaxStreamsPerConnection);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, kMaxConnectionIdleMs);
  grpc::ResourceQuota quota("synergyd");
  quota.Resize(kMemoryQuotaBytes);
  builder.SetResourceQuota(quota);
  builder.SetMaxSendMessageSize(kMaxSendMessageBytes);
  // Calls that wait for the store (submissions, in groups) hold their
  // threads; with gRPC's default of 2 idle pollers kept, every burst
  // created and ended threads (pthread_create and clone3 in the profile),
  // and 16 concurrent submitters got 15-25% fewer through than with 8.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS, kMaxIdlePollers);
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(MalformedRequestInterceptorFactory());
  builder.experimental().SetInterceptorCreators(std::move(interceptors));
  int port = 0;
  builder.AddListeningPort(listen, *credentials, &port);
  builder.RegisterService(scheduler_.get());
  builder.RegisterService(node_.get());
  builder.RegisterService(agent_.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    return absl::AlreadyExistsError(absl::StrCat("listen: cannot serve on '", listen,
                                                 "': the port is taken (another synergyd?) or the address is not this "
                                                 "machine's"));
  }
  absl::MutexLock lock(&server_mu_);
  server_ = std::move(server);
  port_ = port;
  return absl::OkStatus();
}

namespace {
// Per command (sinfo, squeue, sbatch, scancel): how often synergyd ran it,
// how often it failed, how long it took and how much it wrote.
std::string SlurmCommandMetrics(const slurm::SlurmCli& cli) {
  struct Family {
    const char* name;
    const char* help;
    const char* type;
  };
  static const Family kFamilies[] = {
      {"synergy_slurm_commands_total", "Slurm commands synergyd ran", "counter"},
      {"synergy_slurm_command_failures_total", "Slurm commands that failed or exited non-zero", "counter"},
      {"synergy_slurm_command_seconds_total", "Seconds spent waiting on Slurm commands", "counter"},
      {"synergy_slurm_command_output_bytes_total", "Bytes Slurm commands wrote (their JSON)", "counter"},
  };
  std::string out;
  for (size_t f = 0; f < std::size(kFamilies); ++f) {
    absl::StrAppend(&out, "# HELP ", kFamilies[f].name, " ", kFamilies[f].help, "\n# TYPE ", kFamilies[f].name, " ",
                    kFamilies[f].type, "\n");
    for (size_t i = 0; i < std::size(slurm::kSlurmCommands); ++i) {
      const slurm::CommandTally& t = cli.tally(i);
      const std::string value = f == 0   ? absl::StrCat(t.calls.load())
                                : f == 1 ? absl::StrCat(t.failures.load())
                                : f == 2 ? absl::StrFormat("%.3f", t.micros.load() / 1e6)
                                         : absl::StrCat(t.bytes.load());
      absl::StrAppend(&out, kFamilies[f].name, "{command=\"", slurm::kSlurmCommands[i], "\"} ", value, "\n");
    }
  }
  return out;
}
}  // namespace

std::string Daemon::SlurmMetrics() const {
  if (!slurm_) return "";
  const int64_t since = slurm_->unreadable_since_ms();
  return absl::StrCat(
      "# HELP synergy_slurm_unreadable_seconds How long Slurm has not been readable (0: it answers)\n"
      "# TYPE synergy_slurm_unreadable_seconds gauge\n"
      "synergy_slurm_unreadable_seconds ", since > 0 ? (service::NowUnixMs() - since) / 1000 : 0, "\n",
      "# HELP synergy_slurm_outages_total Times Slurm stopped answering (sinfo or squeue failed or reported errors)\n"
      "# TYPE synergy_slurm_outages_total counter\n"
      "synergy_slurm_outages_total ", slurm_->outages(), "\n", SlurmCommandMetrics(slurm_->cli()));
}

void Daemon::WarnIfCertificateExpiresSoon() const {
  if (cert_not_after_s_ == 0) return;
  const int64_t left_s = cert_not_after_s_ - service::NowUnixMs() / 1000;
  if (left_s > kCertificateWarningS) return;
  spdlog::warn("synergyd: tls.cert '{}' expires on {} (in {} h): renew it and restart synergyd; clients refuse an "
               "expired certificate",
               config_.tls.cert, service::FormatUtc(cert_not_after_s_), left_s / 3600);
}

void Daemon::WatchListener() {
  StuckListener stuck;
  bool down = false;  // a rebuild could not bind again: tried every second
  int seconds = 0;
  // The same port: nodes, agents and clients know it.
  const std::string again = absl::StrCat(config_.listen.substr(0, config_.listen.rfind(':')), ":", port_);
  while (!stop_.WaitForNotificationWithTimeout(absl::Seconds(1))) {
    // glibc keeps what connections freed in its arenas (about 84 KB an
    // idle TLS connection: 1,000 closed left 108 MB resident, 34 MB after
    // a trim); given back once a minute, a burst of connections does not
    // hold the host's memory for good.
    if (++seconds % 60 == 0) ::malloc_trim(0);
    if (seconds % kSecondsPerDay == 0) WarnIfCertificateExpiresSoon();
    if (!down) {
      const std::optional<int> queued = ReadListenQueueLength(port_);
      if (!stuck.Sample(queued, service::NowUnixMs())) continue;
      spdlog::error("listener: stuck: {} connection(s) have waited {} s in port {}'s accept queue without being "
                    "accepted (gRPC stops accepting after accept4 fails, e.g. when every file descriptor was in "
                    "use); rebuilding it",
                    queued.value_or(0), StuckListener::kStuckSamples, port_);
      absl::MutexLock lock(&server_mu_);
      if (stop_.HasBeenNotified() || !server_) return;
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
      server_->Wait();
      server_.reset();
      ++listener_rebuilds_;
    }
    if (auto st = StartServer(again); !st.ok()) {
      if (!down) spdlog::error("listener: cannot serve on {} again ({}); trying every second", again, std::string(st.message()));
      down = true;
      continue;
    }
    down = false;
    spdlog::info("listener: serving on {} again", again);
  }
}

namespace {

// When the first round is due: now, or with align_rounds the next multiple
// of round_s on the wall clock (in steady time from then on, which never
// jumps).
std::chrono::steady_clock::time_point FirstRoundDue(const DaemonConfig& config) {
  auto first = std::chrono::steady_clock::now();
  if (config.align_rounds) {
    const int64_t round_ms = std::max<int64_t>(1, config.round_ms());
    first += std::chrono::milliseconds(round_ms - service::NowUnixMs() % round_ms);
  }
  return first;
}

}  // namespace

void Daemon::StepDownIfFenced() {
  if (stepped_down_ || !state_->store_fenced()) return;
  // A standby took over while this one was paused or cut off: it writes
  // nothing more (the store refuses), and ends the way an operator would
  // end it, so that main's signal thread shuts it down.
  stepped_down_ = true;
  spdlog::critical("synergyd: another synergyd leads the state now (this one's epoch was fenced); stepping down");
  ::kill(::getpid(), SIGTERM);
}

void Daemon::RoundLoop() {
  using clock = std::chrono::steady_clock;
  // At least a millisecond: a round of nothing would never move the grid.
  const auto round = std::chrono::duration_cast<clock::duration>(
      std::chrono::milliseconds(std::max<int64_t>(1, config_.round_ms())));
  // Rounds keep a fixed cadence: each is due a round after the last one
  // was due, not after it ran, so time spent planning (and the tick's
  // granularity) does not stretch every round.
  auto grid = FirstRoundDue(config_);
  auto next_round = grid;
  // Planning reads only what DaemonState::Open set, so it runs without
  // the lock (DaemonState::PlanRound); StoreProgress only waits on the
  // store's queue (thread-safe).
  DaemonState* unlocked = nullptr;
  {
    absl::MutexLock lock(&guarded_.mu);
    unlocked = state_.get();
  }
  while (!stop_.HasBeenNotified()) {
    const auto now = clock::now();
    std::optional<RoundWorld> world;
    std::optional<RoundWorld> launch_world;  // a launch between rounds (between_rounds.h)
    std::optional<DaemonState::ProgressFlush> flush;
    {
      absl::MutexLock lock(&guarded_.mu);
      // A tick or round the store refuses changed nothing (DaemonState
      // logged it): the next tick and round try again.
      state_->Tick(service::NowUnixMs(), /*flush_progress=*/false).IgnoreError();
      last_tick_ms_ = service::NowUnixMs();
      StepDownIfFenced();
      if (now >= next_round) {
        auto prepared = state_->PrepareRound(service::NowUnixMs());
        if (prepared.ok()) world = std::move(*prepared);
        if (!prepared.ok()) next_round = now + std::chrono::seconds(1);
      } else if (state_->LaunchDue(service::NowUnixMs())) {
        auto prepared = state_->PrepareLaunch(service::NowUnixMs());
        if (prepared.ok()) launch_world = std::move(*prepared);
      }
      state_->SetNextRoundDue(next_round_unix_ms_.load());
      // Last in the lock: a change this thread committed after taking the
      // flush's place would wait for the flush, which waits for this thread.
      if (state_->ProgressFlushDue(service::NowUnixMs())) flush = state_->StartProgressFlush(service::NowUnixMs());
    }
    if (flush) FinishFlush(unlocked, *flush);
    if (launch_world) LaunchBetweenRounds(*unlocked, *launch_world);
    if (world) {
      const bool planned = PlanAndApplyRound(*unlocked, *world);
      // Rounds missed while this one ran (planning included) are skipped,
      // not run back to back.
      const auto after = clock::now();
      while (grid <= after) grid += round;
      next_round = planned ? grid : std::min(grid, now + std::chrono::seconds(1));
    }
    next_round_unix_ms_ = service::NowUnixMs() +
                          std::chrono::duration_cast<std::chrono::milliseconds>(next_round - clock::now()).count();
    const auto wait = std::clamp<clock::duration>(next_round - clock::now(), std::chrono::milliseconds(1),
                                                  std::chrono::milliseconds(100));
    stop_.WaitForNotificationWithTimeout(absl::FromChrono(wait));
  }
}

void Daemon::LaunchBetweenRounds(const DaemonState& planner, const RoundWorld& world) {
  const RoundDecisions decisions = planner.PlanLaunches(world);
  absl::MutexLock lock(&guarded_.mu);
  // A refused commit re-arms the launch (DaemonState logged it).
  state_->ApplyLaunches(world, decisions, service::NowUnixMs()).IgnoreError();
}

bool Daemon::PlanAndApplyRound(const DaemonState& planner, const RoundWorld& world) {
  const RoundDecisions decisions = planner.PlanRound(world);
  absl::MutexLock lock(&guarded_.mu);
  return state_->ApplyRound(world, decisions, service::NowUnixMs()).ok();
}

void Daemon::FinishFlush(DaemonState* store_without_lock, DaemonState::ProgressFlush& flush) {
  // The store is waited for without the lock; its place in the queue was
  // taken under it.
  const absl::Status stored = store_without_lock->StoreProgress(flush);
  absl::MutexLock lock(&guarded_.mu);
  state_->FinishProgressFlush(flush, stored).IgnoreError();
}

void Daemon::Wait() {
  stopped_.WaitForNotification();
}

void Daemon::Shutdown() {
  if (shutting_down_.exchange(true)) return;
  stop_.Notify();
  if (loop_.joinable()) loop_.join();
  if (listener_watch_.joinable()) listener_watch_.join();
  metrics_.Stop();  // first: its handlers read slurm_
  slurm_.reset();  // Slurm's jobs run on; a restarted synergyd finds them by name
  {
    absl::MutexLock lock(&server_mu_);
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
  if (state_) {
    // What agents reported since the last tick that stored it.
    absl::MutexLock lock(&guarded_.mu);
    state_->FlushProgress(service::NowUnixMs()).IgnoreError();
  }
  if (state_) spdlog::info("synergyd: stopped");  // not after a Start that failed early
  stopped_.Notify();
}

Daemon::~Daemon() { Shutdown(); }

}  // namespace synergy::daemon
