#include "cli/job_logs.h"

#include "service/escape.h"
#include "service/request_limits.h"

namespace synergy::cli {
namespace {

void Header(std::ostream& notes, const v1::JobLogs& logs) {
  notes << "--- " << service::EscapeForDisplay(logs.job_id()) << " lease " << logs.epoch() << " on "
        << service::EscapeForDisplay(logs.node()) << " ---\n";
}

// The next piece of the output `options` names: lease `epoch` (0: the
// latest), from byte `offset`.
v1::JobLogsRequest RequestAt(const LogsOptions& options, int64_t epoch, int64_t offset) {
  v1::JobLogsRequest request;
  request.set_job_id(options.job_id);
  request.set_epoch(epoch);
  request.set_rank(options.rank);
  request.set_stderr(options.stderr_stream);
  request.set_offset(offset);
  request.set_max_bytes(service::kMaxLogChunkBytes);
  return request;
}

}  // namespace

grpc::Status ShowLogs(const LogsOptions& options, const FetchLogs& fetch, std::ostream& out, std::ostream& notes,
                      const std::function<void()>& pause) {
  int64_t epoch = options.epoch;
  int64_t offset = 0;
  bool announced = false;
  // Caught up once already: one more read after a pause before moving on
  // or stopping, for what the process wrote as its lease ended.
  bool settled = false;
  bool seen = false;
  int misses = 0;
  constexpr int kMaxMisses = 60;
  for (;;) {
    v1::JobLogs logs;
    const grpc::Status st = fetch(RequestAt(options, epoch, offset), &logs);
    if (!st.ok()) {
      // Following a job seen running: a node slow to answer, or a new
      // lease whose process has not written yet, is waited for a while.
      const bool transient = st.error_code() == grpc::StatusCode::UNAVAILABLE ||
                             st.error_code() == grpc::StatusCode::NOT_FOUND;
      if (options.follow && seen && transient && ++misses <= kMaxMisses) {
        pause();
        continue;
      }
      return st;
    }
    seen = true;
    misses = 0;
    // Later reads ask for the lease this one found, not whichever is latest.
    epoch = logs.epoch();
    if (options.follow && !announced) Header(notes, logs);
    announced = true;
    if (logs.rotated()) notes << "[synergyctl: the node rotated this output since; reading its current file]\n";
    out << logs.data();
    out.flush();
    offset = logs.offset() + static_cast<int64_t>(logs.data().size());
    // More to read now (an empty piece short of the size is a node that
    // could not read: treated as caught up, not asked again at once).
    if (offset < logs.size() && !logs.data().empty()) {
      settled = false;
      continue;
    }
    if (!options.follow) return grpc::Status::OK;
    const bool newer = logs.latest_epoch() > epoch;
    if ((newer || logs.job_ended()) && !logs.data().empty()) settled = false;
    if (newer && settled) {
      // The next lease in order (none skipped), else the latest.
      epoch = logs.next_epoch() > epoch ? logs.next_epoch() : 0;
      offset = 0;
      settled = false;
      announced = false;
      continue;
    }
    if (logs.job_ended() && !newer && settled) return grpc::Status::OK;
    settled = newer || logs.job_ended();
    pause();
  }
}

}  // namespace synergy::cli
