#pragma once
// Job output relayed from the nodes that hold it (synergyctl logs). A
// client's read waits here until the node picks it up with its next
// heartbeat (TakeFor) and sends the bytes back (Deliver, from
// NodeService/ReturnLogs), or until its time is up. Nothing here is
// stored: a read that fails is asked again. Thread-safe, and used outside
// the daemon's lock, so a waiting reader holds nothing else up.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

class LogRelay {
 public:
  // Reads waiting at once, over every node and for one reader: more are
  // refused (RESOURCE_EXHAUSTED); each holds a server thread while it waits.
  static constexpr int kMaxWaiting = 64;
  static constexpr int kMaxWaitingPerReader = 8;
  // Requests one heartbeat reply hands a node (the node answers them one by
  // one before its next heartbeat).
  static constexpr int kMaxPerHeartbeat = 4;

  // Queues `request` (its request_id is assigned here) for `node` on behalf
  // of `reader` and waits until `deadline` for the node's answer, or until
  // `cancelled()` says the reader has gone (checked a few times a second);
  // UNAVAILABLE when no answer came.
  absl::StatusOr<v1::LogChunk> Fetch(const std::string& node, const std::string& reader, v1::LogRequest request,
                                     absl::Time deadline, const std::function<bool()>& cancelled);
  // Up to kMaxPerHeartbeat requests waiting for `node` that it has not been
  // given yet, oldest first.
  std::vector<v1::LogRequest> TakeFor(const std::string& node);
  // `node`'s answer to one of its requests; false (and dropped) when no
  // request of that id waits for that node (late, or never asked).
  bool Deliver(const std::string& node, v1::LogChunk chunk);

 private:
  struct Waiting {
    std::string node;
    std::string reader;
    v1::LogRequest request;
    bool taken = false;
    std::optional<v1::LogChunk> answer;
  };
  absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int64_t, Waiting> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace synergy::daemon
