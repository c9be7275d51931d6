#pragma once
// synergyctl logs: one lease's output, read through synergyd in pieces of
// at most 1 MiB (synergyd fetches each from the node that ran the lease).
// Following, it polls until the job has ended and moves on to the job's
// next lease whenever a newer one exists and the current one's output
// has stopped growing, so one command follows a job across preemptions.
// Leases are followed in order, none skipped (of the 32 a job remembers).
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "grpcpp/grpcpp.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

struct LogsOptions {
  std::string job_id;
  int64_t epoch = 0;  // 0: the latest lease
  int rank = 0;
  bool stderr_stream = false;
  bool follow = false;
};

// One GetJobLogs call.
using FetchLogs = std::function<grpc::Status(const v1::JobLogsRequest&, v1::JobLogs*)>;

// Writes the output to `out` as it is read, and notes (which lease, a
// rotation on the node) to `notes`. `pause` is called between polls when
// following (a second, in synergyctl). Returns the first call that failed
// (while following, a node that did not answer in time is asked again).
grpc::Status ShowLogs(const LogsOptions& options, const FetchLogs& fetch, std::ostream& out, std::ostream& notes,
                      const std::function<void()>& pause);

}  // namespace synergy::cli
