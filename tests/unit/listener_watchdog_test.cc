// The listener watchdog's two pure parts: reading a listening socket's
// accept queue from /proc/net/tcp text, and deciding when a queue that
// does not drain means a listener that stopped accepting.
#include "daemon/server/listener_watchdog.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gtest/gtest.h"

namespace synergy::daemon {
namespace {

// Three sockets as Linux prints them: port 0xC350 (50000) listening with 3
// connections not yet accepted, the same port on another address with 1,
// and an established connection to it (state 01) with bytes queued.
constexpr char kProcNetTcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:C350 00000000:0000 0A 00000000:00000003 00:00000000 00000000  1000        0 4242 1\n"
    "   1: 0200007F:C350 00000000:0000 0A 00000000:00000001 00:00000000 00000000  1000        0 4243 1\n"
    "   2: 0100007F:C350 0100007F:D431 01 00000000:00000040 00:00000000 00000000  1000        0 4244 1\n"
    "   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4245 1\n";

TEST(ListenQueueLength, ReadsTheLongestListeningQueueOnThePort) {
  EXPECT_EQ(ListenQueueLength(kProcNetTcp, 50000), 3);
  EXPECT_EQ(ListenQueueLength(kProcNetTcp, 8080), 0);
  EXPECT_EQ(ListenQueueLength(kProcNetTcp, 54321), std::nullopt);  // only a connection's remote end
  EXPECT_EQ(ListenQueueLength("", 50000), std::nullopt);
  EXPECT_EQ(ListenQueueLength("garbage\n 0: zz:zz 0 0A q:q\n", 50000), std::nullopt);
}

TEST(ListenQueueLength, SeesAConnectionThisProcessDidNotAccept) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(listener, 16), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  EXPECT_EQ(ReadListenQueueLength(port), 0);
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(ReadListenQueueLength(port), 1);  // connected, never accepted
  const int accepted = ::accept(listener, nullptr, nullptr);
  EXPECT_EQ(ReadListenQueueLength(port), 0);
  ::close(accepted);
  ::close(client);
  ::close(listener);
  EXPECT_EQ(ReadListenQueueLength(port), std::nullopt);
}

TEST(StuckListener, RebuildsOnlyAfterTheQueueStayedNonEmptyForFiveSamples) {
  StuckListener stuck;
  int64_t t = 0;
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(stuck.Sample(2, t += 1000));
  EXPECT_FALSE(stuck.Sample(0, t += 1000));  // drained: a busy but healthy listener
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(stuck.Sample(1, t += 1000));
  EXPECT_FALSE(stuck.Sample(std::nullopt, t += 1000));  // unreadable: neither counts nor clears
  EXPECT_TRUE(stuck.Sample(1, t += 1000));
}

TEST(StuckListener, WaitsBetweenRebuilds) {
  StuckListener stuck;
  int64_t t = 0;
  for (int i = 0; i < 4; ++i) stuck.Sample(9, t += 1000);
  ASSERT_TRUE(stuck.Sample(9, t += 1000));
  const int64_t rebuilt = t;
  bool again = false;
  while (!again) {
    again = stuck.Sample(9, t += 1000);
  }
  EXPECT_GE(t - rebuilt, StuckListener::kRebuildBackoffMs);
}

}  // namespace
}  // namespace synergy::daemon
