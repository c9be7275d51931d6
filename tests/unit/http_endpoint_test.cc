// The HTTP endpoint behind /metrics, /healthz and /readyz, on a real
// socket: idle clients do not hold up a probe, and beyond the cap clients
// wait their turn instead of being refused.
#include "service/http_endpoint.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace synergy::service {
namespace {

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)), 0);
  return fd;
}

// Sends a GET and reads the reply to its end (the server closes).
std::string Get(int port, const std::string& path) {
  const int fd = Connect(port);
  const std::string request = "GET " + path + " HTTP/1.0\r\n\r\n";
  EXPECT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
  std::string reply;
  char buf[1024];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) reply.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return reply;
}

// The server has not closed `fd` (nothing to read, no end of file).
bool StillOpen(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 0;
}

class HttpEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    endpoint_.Handle("/healthz", [] { return HttpReply{200, "ok\n"}; });
    auto port = endpoint_.Start("127.0.0.1:0", "metrics_listen");
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
  }
  void TearDown() override {
    for (int fd : idle_) ::close(fd);
  }
  HttpEndpoint endpoint_;
  int port_ = 0;
  std::vector<int> idle_;
};

TEST_F(HttpEndpointTest, IdleClientsDoNotHoldUpAProbe) {
  for (int i = 0; i < 8; ++i) idle_.push_back(Connect(port_));
  const std::string reply = Get(port_, "/healthz");
  EXPECT_EQ(reply.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << reply;
  EXPECT_NE(reply.find("\r\n\r\nok\n"), std::string::npos) << reply;
  // Answered while every idle client still held its connection (they are
  // closed only at their time limit).
  for (int fd : idle_) EXPECT_TRUE(StillOpen(fd));
}

TEST_F(HttpEndpointTest, BeyondTheCapAClientWaitsForASlotAndIsAnswered) {
  for (int i = 0; i < HttpEndpoint::kMaxConnections + 4; ++i) idle_.push_back(Connect(port_));
  const std::string reply = Get(port_, "/healthz");
  EXPECT_EQ(reply.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << reply;
  EXPECT_EQ(Get(port_, "/nothing").rfind("HTTP/1.0 404", 0), 0u);
}

}  // namespace
}  // namespace synergy::service
