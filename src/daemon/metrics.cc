#include "daemon/metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/names.h"

namespace synergy::daemon {

std::string RenderMetrics(const DaemonState& state) {
  std::string out;
  const v1::ClusterState c = state.Cluster();
  const DaemonCounters& k = state.counters();
  auto gauge = [&](const char* name, const char* help, double v) {
    absl::StrAppendFormat(&out, "# HELP %s %s\n# TYPE %s gauge\n%s %g\n", name, help, name, name, v);
  };
  auto counter = [&](const char* name, const char* help, double v) {
    absl::StrAppendFormat(&out, "# HELP %s %s\n# TYPE %s counter\n%s %g\n", name, help, name, name, v);
  };
  absl::StrAppend(&out, "# HELP synergy_jobs Jobs by state.\n# TYPE synergy_jobs gauge\n");
  for (int state = v1::JOB_STATE_PENDING; state <= v1::JOB_STATE_CANCELLED; ++state) {
    const std::string s = service::JobStateName(static_cast<v1::JobState>(state));
    auto it = c.jobs_by_state().find(s);
    absl::StrAppendFormat(&out, "synergy_jobs{state=\"%s\"} %d\n", s, it == c.jobs_by_state().end() ? 0 : it->second);
  }
  gauge("synergy_gpus_total", "GPUs of alive nodes.", c.gpus());
  gauge("synergy_gpus_allocated", "GPUs held by leases.", c.allocated_gpus());
  gauge("synergy_gpus_free", "GPUs of alive nodes not held by leases.", c.gpus() - c.allocated_gpus());
  gauge("synergy_cpus_total", "CPU cores of alive nodes.", c.cpus());
  gauge("synergy_cpus_allocated", "CPU cores held by leases.", c.allocated_cpus());
  gauge("synergy_cpus_free", "CPU cores not held by leases.", c.cpus() - c.allocated_cpus());
  gauge("synergy_memory_gb_total", "Memory of alive nodes, GB.", c.mem_gb());
  gauge("synergy_memory_gb_allocated", "Memory held by leases, GB.", c.allocated_mem_gb());
  gauge("synergy_memory_gb_free", "Memory not held by leases, GB.", c.mem_gb() - c.allocated_mem_gb());
  gauge("synergy_nodes_alive", "Nodes heard from within the heartbeat timeout.", c.nodes_alive());
  gauge("synergy_round_decision_ms", "Time to decide and apply the last round, ms.", k.last_round_ms);
  counter("synergy_rounds_total", "Rounds run.", k.rounds);
  counter("synergy_leases_granted_total", "Leases granted.", k.leases_granted);
  counter("synergy_leases_ended_total",
          "Leases ended for any reason: a round, a cancel, the job's exit or crash, a lost node.", k.leases_ended);
  counter("synergy_leases_kept_total", "Leases a round kept unchanged.", k.leases_kept);
  counter("synergy_jobs_submitted_total", "Jobs accepted.", k.jobs_submitted);
  counter("synergy_jobs_requeued_total", "Jobs requeued after a crash or a lost node.", k.jobs_requeued);
  counter("synergy_store_failures_total",
          "Changes the state store refused (a full disk, a read-only file); each was undone and not acted on.",
          k.store_failures);
  return out;
}

absl::StatusOr<int> MetricsServer::Start(const std::string& address, std::function<std::string()> render) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat("metrics_listen: '", address, "' is not host:port"));
  }
  const std::string host = address.substr(0, colon);
  const int port = std::atoi(address.c_str() + colon + 1);
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("metrics_listen: '", host, "' is not an IPv4 address"));
  }
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || listen(fd_, 16) != 0) {
    const std::string err = std::strerror(errno);
    close(fd_);
    fd_ = -1;
    return absl::UnavailableError(absl::StrCat("metrics_listen: cannot listen on ", address, ": ", err));
  }
  socklen_t len = sizeof(sa);
  getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  thread_ = std::thread([this, render = std::move(render)] {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 200) <= 0) continue;
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      // A client that connects and says nothing (or reads nothing) must not
      // hold the only serving thread, nor shutdown, for long.
      const timeval limit{2, 0};
      setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
      setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
      char buf[2048];
      const ssize_t n = recv(c, buf, sizeof(buf) - 1, 0);
      std::string req(buf, n > 0 ? static_cast<size_t>(n) : 0);
      std::string body, status = "200 OK";
      if (req.rfind("GET /metrics", 0) == 0) {
        body = render();
      } else {
        status = "404 Not Found";
        body = "only /metrics is served\n";
      }
      const std::string resp = absl::StrCat("HTTP/1.0 ", status,
                                            "\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: ",
                                            body.size(), "\r\nConnection: close\r\n\r\n", body);
      size_t off = 0;
      while (off < resp.size()) {
        const ssize_t w = send(c, resp.data() + off, resp.size() - off, MSG_NOSIGNAL);
        if (w <= 0) break;
        off += static_cast<size_t>(w);
      }
      close(c);
    }
  });
  return ntohs(sa.sin_port);
}

void MetricsServer::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace synergy::daemon
