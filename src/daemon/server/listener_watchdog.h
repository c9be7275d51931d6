#pragma once
// Whether synergyd's gRPC listener still accepts connections. gRPC 1.51
// stops accepting for good when accept4 fails with anything but EAGAIN or
// ECONNABORTED, e.g. EMFILE after a flood of idle connections used every
// descriptor: clients and nodes then wait in the kernel's accept queue for
// ever. The watchdog reads that queue (/proc/net/tcp: a listening socket's
// rx_queue is its accept backlog); a healthy listener empties it within
// microseconds, so a queue that stays non-empty over several seconds means
// a listener that no longer accepts, and Daemon rebuilds it (server.cc).
// Pure parts (parsing, the decision) apart from the one read of /proc.
#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

namespace synergy::daemon {

// The accept queue of the listening socket on `port` in the text of
// /proc/net/tcp or /proc/net/tcp6 (state 0A), the largest where several
// addresses listen on it; nullopt when none does.
std::optional<int> ListenQueueLength(absl::string_view proc_net_tcp, int port);

// Both files read; nullopt when neither can be read (no descriptor left,
// no /proc) or nothing listens on `port`.
std::optional<int> ReadListenQueueLength(int port);

// The decision, one sample a second: stuck when the queue was non-empty in
// kStuckSamples samples in a row; after a rebuild, not again for
// kRebuildBackoffMs (descriptors may still be exhausted: the new listener
// would fail the same way, and each rebuild drops calls in flight).
class StuckListener {
 public:
  static constexpr int kStuckSamples = 5;
  static constexpr int64_t kRebuildBackoffMs = 10000;

  // A sample at `now_ms` (nullopt: could not be read, which neither counts
  // nor clears); true when the listener should be rebuilt now.
  bool Sample(std::optional<int> queued, int64_t now_ms);
  int queued_samples() const { return queued_samples_; }

 private:
  int queued_samples_ = 0;
  int64_t last_rebuild_ms_ = -kRebuildBackoffMs;
};

}  // namespace synergy::daemon
