#include "daemon/server/listener_watchdog.h"

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace synergy::daemon {

std::optional<int> ListenQueueLength(absl::string_view proc_net_tcp, int port) {
  std::optional<int> longest;
  for (absl::string_view line : absl::StrSplit(proc_net_tcp, '\n')) {
    // "  0: 0100007F:C350 00000000:0000 0A 00000000:00000003 ..."
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (f.size() < 5 || f[3] != "0A") continue;
    const size_t colon = f[1].rfind(':');
    uint32_t local_port = 0;
    if (colon == absl::string_view::npos || !absl::SimpleHexAtoi(f[1].substr(colon + 1), &local_port) ||
        local_port != static_cast<uint32_t>(port)) {
      continue;
    }
    const size_t queues = f[4].find(':');
    uint32_t rx = 0;
    if (queues == absl::string_view::npos || !absl::SimpleHexAtoi(f[4].substr(queues + 1), &rx)) continue;
    longest = std::max(longest.value_or(0), static_cast<int>(rx));
  }
  return longest;
}

std::optional<int> ReadListenQueueLength(int port) {
  std::optional<int> longest;
  for (const char* path : {"/proc/self/net/tcp", "/proc/self/net/tcp6"}) {
    std::ifstream in(path);
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    if (std::optional<int> q = ListenQueueLength(text.str(), port)) longest = std::max(longest.value_or(0), *q);
  }
  return longest;
}

bool StuckListener::Sample(std::optional<int> queued, int64_t now_ms) {
  if (!queued) return false;
  queued_samples_ = *queued > 0 ? queued_samples_ + 1 : 0;
  if (queued_samples_ < kStuckSamples || now_ms - last_rebuild_ms_ < kRebuildBackoffMs) return false;
  queued_samples_ = 0;
  last_rebuild_ms_ = now_ms;
  return true;
}

}  // namespace synergy::daemon
