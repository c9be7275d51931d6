#include "service/http_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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
  fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd_, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0 || listen(fd_, 16) != 0) {
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

void HttpEndpoint::Serve() {
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
    const HttpReply reply = Route(routes_, std::string(buf, n > 0 ? static_cast<size_t>(n) : 0));
    const std::string resp =
        absl::StrCat("HTTP/1.0 ", reply.status, " ", StatusText(reply.status), "\r\nContent-Type: ",
                     reply.content_type, "\r\nContent-Length: ", reply.body.size(), "\r\nConnection: close\r\n\r\n",
                     reply.body);
    size_t off = 0;
    while (off < resp.size()) {
      const ssize_t w = send(c, resp.data() + off, resp.size() - off, MSG_NOSIGNAL);
      if (w <= 0) break;
      off += static_cast<size_t>(w);
    }
    close(c);
  }
}

void HttpEndpoint::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

}  // namespace synergy::service
