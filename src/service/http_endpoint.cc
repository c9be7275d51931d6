#include "service/http_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace synergy::service {

HttpReply Route(const std::map<std::string, HttpEndpoint::Handler>& routes, const std::string& request) {
  const std::string line = request.substr(0, request.find_first_of("\r\n"));
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string::npos ? std::string::npos : line.find(' ', sp1 + 1);
  if (sp1 == std::string::npos) return {400, "bad request\n"};
  const std::string method = line.substr(0, sp1);
  std::string path = line.substr(sp1 + 1, sp2 == std::string::npos ? std::string::npos : sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  auto it = routes.find(path);
  if (it == routes.end()) {
    std::string known;
    for (const auto& [p, h] : routes) absl::StrAppend(&known, known.empty() ? "" : ", ", p);
    return {404, absl::StrCat("not found; served: ", known, "\n")};
  }
  if (method != "GET") return {405, "only GET\n"};
  return it->second();
}

namespace {

const char* StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

}  // namespace

absl::StatusOr<int> HttpEndpoint::Start(const std::string& address, const std::string& what) {
  const auto colon = address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 0 ||
      port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": '", address, "' is not host:port"));
  }
  const std::string host = address.substr(0, colon);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": '", host, "' is not an IPv4 address"));
  }
  // Non-blocking: Serve accepts until the queue is empty.
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || listen(fd_, 128) != 0) {
    const std::string err = std::strerror(errno);
    close(fd_);
    fd_ = -1;
    return absl::UnavailableError(absl::StrCat(what, ": cannot listen on ", address, ": ", err));
  }
  socklen_t len = sizeof(sa);
  getsockname(fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  stop_ = false;
  thread_ = std::thread([this] { Serve(); });
  return ntohs(sa.sin_port);
}

namespace {

// One client: its request as read so far, then the reply being sent.
struct Connection {
  int fd = -1;
  std::string request;
  std::string reply;
  size_t sent = 0;
  std::chrono::steady_clock::time_point deadline;
  bool replying = false;
};

// A request line is all the endpoint reads (HTTP/1.0, no body).
constexpr size_t kMaxRequestBytes = 8192;

std::string Render(const HttpReply& reply) {
  return absl::StrCat("HTTP/1.0 ", reply.status, " ", StatusText(reply.status), "\r\nContent-Type: ",
                      reply.content_type, "\r\nContent-Length: ", reply.body.size(),
                      "\r\nConnection: close\r\n\r\n", reply.body);
}

}  // namespace

void HttpEndpoint::Serve() {
  std::vector<Connection> open;
  std::vector<pollfd> polled;
  while (!stop_) {
    polled.clear();
    // At the cap, new clients wait in the listen queue.
    const bool accepting = open.size() < static_cast<size_t>(kMaxConnections);
    polled.push_back({accepting ? fd_ : -1, POLLIN, 0});
    for (const Connection& c : open) polled.push_back({c.fd, static_cast<short>(c.replying ? POLLOUT : POLLIN), 0});
    if (poll(polled.data(), polled.size(), 100) < 0 && errno != EINTR) continue;
    const auto now = std::chrono::steady_clock::now();
    for (size_t i = 0; i < open.size(); ++i) {
      Connection& c = open[i];
      const short events = polled[i + 1].revents;
      bool done = now >= c.deadline;
      if (!done && !c.replying && (events & (POLLIN | POLLHUP | POLLERR))) {
        char buf[2048];
        const ssize_t n = recv(c.fd, buf, sizeof(buf), 0);
        if (n > 0) c.request.append(buf, static_cast<size_t>(n));
        const bool line = c.request.find('\n') != std::string::npos;
        if (line || c.request.size() >= kMaxRequestBytes || n == 0) {
          c.reply = Render(Route(routes_, c.request));
          c.replying = true;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
          done = true;
        }
      }
      if (!done && c.replying && (events & (POLLOUT | POLLERR | POLLHUP))) {
        const ssize_t w = send(c.fd, c.reply.data() + c.sent, c.reply.size() - c.sent, MSG_NOSIGNAL);
        if (w > 0) c.sent += static_cast<size_t>(w);
        done = w < 0 ? (errno != EAGAIN && errno != EINTR) : c.sent == c.reply.size();
      }
      if (done) {
        close(c.fd);
        c.fd = -1;
      }
    }
    open.erase(std::remove_if(open.begin(), open.end(), [](const Connection& c) { return c.fd < 0; }), open.end());
    if (accepting && (polled[0].revents & POLLIN)) {
      for (int n = 0; open.size() < static_cast<size_t>(kMaxConnections) && n < kMaxConnections; ++n) {
        const int fd = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) break;
        Connection c;
        c.fd = fd;
        c.deadline = now + kConnectionLimit;
        open.push_back(std::move(c));
      }
    }
  }
  for (const Connection& c : open) close(c.fd);
}

void HttpEndpoint::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace synergy::service
