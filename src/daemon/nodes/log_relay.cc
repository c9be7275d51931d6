#include "daemon/nodes/log_relay.h"

#include "absl/strings/str_cat.h"

namespace synergy::daemon {

absl::StatusOr<v1::LogChunk> LogRelay::Fetch(const std::string& node, const std::string& reader,
                                             v1::LogRequest request, absl::Time deadline,
                                             const std::function<bool()>& cancelled) {
  absl::MutexLock lock(&mu_);
  if (waiting_.size() >= kMaxWaiting) {
    return absl::ResourceExhaustedError(
        absl::StrCat(kMaxWaiting, " reads of job output are waiting for nodes already; try again"));
  }
  int of_reader = 0;
  for (const auto& [id, w] : waiting_) of_reader += w.reader == reader ? 1 : 0;
  if (of_reader >= kMaxWaitingPerReader) {
    return absl::ResourceExhaustedError(
        absl::StrCat(reader, " has ", kMaxWaitingPerReader, " reads of job output waiting already; try again"));
  }
  const int64_t id = next_id_++;
  request.set_request_id(id);
  waiting_[id] = Waiting{node, reader, std::move(request), false, std::nullopt};
  auto answered = [this, id]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return waiting_.at(id).answer.has_value(); };
  const absl::Time started = absl::Now();
  while (!mu_.AwaitWithDeadline(absl::Condition(&answered), std::min(deadline, absl::Now() + absl::Milliseconds(200)))) {
    if (absl::Now() >= deadline || cancelled()) break;
  }
  Waiting done = std::move(waiting_.at(id));
  waiting_.erase(id);
  if (!done.answer) {
    return absl::UnavailableError(absl::StrCat("node ", node, " did not send the output within ",
                                               absl::FormatDuration(absl::Trunc(absl::Now() - started,
                                                                                absl::Milliseconds(100))),
                                               "; try again"));
  }
  return std::move(*done.answer);
}

std::vector<v1::LogRequest> LogRelay::TakeFor(const std::string& node) {
  absl::MutexLock lock(&mu_);
  std::vector<v1::LogRequest> out;
  for (auto& [id, w] : waiting_) {
    if (out.size() >= static_cast<size_t>(kMaxPerHeartbeat)) break;
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
