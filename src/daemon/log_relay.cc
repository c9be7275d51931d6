#include "daemon/log_relay.h"

#include "absl/strings/str_cat.h"

namespace synergy::daemon {

absl::StatusOr<v1::LogChunk> LogRelay::Fetch(const std::string& node, v1::LogRequest request,
                                             absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  if (waiting_.size() >= kMaxWaiting) {
    return absl::ResourceExhaustedError(
        absl::StrCat(kMaxWaiting, " reads of job output are waiting for nodes already; try again"));
  }
  const int64_t id = next_id_++;
  request.set_request_id(id);
  waiting_[id] = Waiting{node, std::move(request), false, std::nullopt};
  auto answered = [this, id]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return waiting_.at(id).answer.has_value(); };
  mu_.AwaitWithTimeout(absl::Condition(&answered), timeout);
  Waiting done = std::move(waiting_.at(id));
  waiting_.erase(id);
  if (!done.answer) {
    return absl::UnavailableError(absl::StrCat("node ", node, " did not send the output within ",
                                               absl::FormatDuration(timeout), "; try again"));
  }
  return std::move(*done.answer);
}

std::vector<v1::LogRequest> LogRelay::TakeFor(const std::string& node) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::LogRequest> out;
  for (auto& [id, w] : waiting_) {
    if (w.node != node || w.taken) continue;
    w.taken = true;
    out.push_back(w.request);
  }
  return out;
}

bool LogRelay::Deliver(const std::string& node, v1::LogChunk chunk) {
  absl::MutexLock lock(&mu_);
  auto it = waiting_.find(chunk.request_id());
  if (it == waiting_.end() || it->second.node != node || it->second.answer) return false;
  it->second.answer = std::move(chunk);
  return true;
}

}  // namespace synergy::daemon
