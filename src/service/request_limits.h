#pragma once
// The bounds every RPC input is held to where it enters synergyd
// (service/request_validation.h checks them). They exist so that no client,
// node or agent, broken or hostile, can make the daemon store, sum, print or
// loop over more than it was built for: each is far above what a real job,
// node or agent sends, and far below what would overflow an int, exhaust
// memory or fill a terminal. Sizes of strings are in bytes of UTF-8.
//
// What a field may hold (see escape.h for "printable"):
//  - job names, models, tenants, paths, reasons, cgroups: printable text;
//    job names may hold spaces.
//  - node names and job ids: 1 or more of [A-Za-z0-9._-], not "." or ".."
//    (host names and synergyd's "j-000001" fit; nothing else needs to).
//  - node addresses: [A-Za-z0-9._:%-] and [ ] (host names, IPv4, IPv6 with
//    a zone), or empty.
//  - command arguments and env values: any UTF-8 but NUL (execve cannot
//    carry one); newlines and tabs stay legal in a shell script argument,
//    and synergyctl escapes them when it shows them.
//  - env names: POSIX names, [A-Za-z_][A-Za-z0-9_]*, not SYNERGY_* (synergyd
//    sets those).
//  - doubles: finite (NaN and infinities are refused everywhere).
// Priority classes run 0 to kMaxPriorityClass (1000, service/job_spec.h).
#include <cstddef>
#include <cstdint>

namespace synergy::service {

// ------------------------------------------------------------ job specs --
inline constexpr std::size_t kMaxJobNameBytes = 256;
inline constexpr std::size_t kMaxModelBytes = 128;
inline constexpr std::size_t kMaxTenantBytes = 64;
// argv: arguments and their bytes together (a generous shell one-liner).
inline constexpr int kMaxCommandArgs = 256;
inline constexpr std::size_t kMaxCommandBytes = 64 * 1024;
// The job's own environment: names and values together in the total.
inline constexpr int kMaxEnvVars = 256;
inline constexpr std::size_t kMaxEnvNameBytes = 128;
inline constexpr std::size_t kMaxEnvValueBytes = 32 * 1024;
inline constexpr std::size_t kMaxEnvBytes = 128 * 1024;
// GPUs one job may ask for before any node has registered (after that the
// cluster's GPUs bound it): far above any cluster synergyd runs, and a sum
// of a few thousand such demands still fits an int.
inline constexpr int kMaxJobGpus = 65536;
// Total iterations, and any iteration an agent reports or checkpoints: a
// million years at 30 it/s; keeps iterations x seconds far from overflow.
inline constexpr int64_t kMaxIterations = 1'000'000'000'000;
// Crashes retried before a job fails (-1 = the daemon's default).
inline constexpr int kMaxRetries = 100;
// A job's time limit: at most a year (time_limit_s; 0 = the default).
inline constexpr int64_t kMaxTimeLimitS = int64_t{365} * 86400;
// Dependencies (after_ok and after_any together) of one job.
inline constexpr int kMaxDependencies = 64;
// Jobs those dependencies stand for (an array's id stands for each of its
// jobs): what one judgement of them reads.
inline constexpr std::size_t kMaxDependencyJobs = 10000;
// A job array: jobs one submission makes, and its highest index (Slurm's
// MaxArraySize is 1001 by default; sites raise it to tens of thousands).
inline constexpr int kMaxArrayJobs = 10000;
inline constexpr int kMaxArrayIndex = 1'000'000;
inline constexpr std::size_t kMaxArraySpecBytes = 256;

// ---------------------------------------------------------------- nodes --
inline constexpr std::size_t kMaxNodeNameBytes = 253;  // a DNS name
inline constexpr std::size_t kMaxNodeAddressBytes = 253;
inline constexpr int kMaxNodeGpuIds = 4096;
inline constexpr int kMaxNodeCpuIds = 65536;
// GPU and CPU ids: unique within their list, 0 to this.
inline constexpr int kMaxDeviceId = 65535;
// RunningProcess and ProcessExit entries of one RegisterNode or Heartbeat,
// each list.
inline constexpr int kMaxProcessesPerHeartbeat = 4096;
// Exit codes as waitpid reports them (-1 = killed by a signal), and the
// signal numbers WTERMSIG can hold.
inline constexpr int kMinExitCode = -1;
inline constexpr int kMaxExitCode = 255;
inline constexpr int kMaxSignal = 127;

// --------------------------------------------------------------- agents --
inline constexpr std::size_t kMaxJobIdBytes = 253;
inline constexpr std::size_t kMaxPathBytes = 4096;  // PATH_MAX
// A job's ranks (one per node it runs on).
inline constexpr int kMaxRank = 65535;
inline constexpr int kMaxProfilePoints = 1024;
// Distinct CPU counts, and distinct memory sizes, in one profile: every
// round builds the job's grid over them (measured_model.h), so 1024 points
// that all differ would be a 1024 x 1024 grid per job per plan.
inline constexpr int kMaxProfileAxisValues = 64;
// Iterations per second (a progress report, a profile point).
inline constexpr double kMaxThroughput = 1e9;
// A profile point's throughput is 0 or at least this (one iteration in
// about 12 days): a profile is normalised by its value at the share, and
// a denormal there would make every speedup infinite.
inline constexpr double kMinProfileThroughput = 1e-6;
// Memory in GB (a node's, a profile point's): positive, at most this.
inline constexpr double kMaxMemoryGb = 1e6;
// CPUs of a profile point: positive, at most a node's CPU ids.
inline constexpr double kMaxProfileCpus = kMaxNodeCpuIds;

// --------------------------------------------------------------- shared --
// Free text: a process exit's reason, a node's cgroups description.
inline constexpr std::size_t kMaxReasonBytes = 1024;
// A piece of job output (GetJobLogs, ReturnLogs): at most this many bytes,
// 64 KiB when the reader does not say.
inline constexpr int kMaxLogChunkBytes = 1 << 20;
inline constexpr int kDefaultLogChunkBytes = 64 << 10;
// Why a node was drained (DrainNodeRequest.reason): one line.
inline constexpr std::size_t kMaxDrainReasonBytes = 256;
// JobState filters of one ListJobs (there are nine states; repeats allowed).
inline constexpr int kMaxListStates = 64;
// Jobs in one page of ListJobs / ListJobHistory: the default and the most.
inline constexpr int kDefaultListPageSize = 500;
inline constexpr int kMaxListPageSize = 5000;
// A page stops before it passes this many bytes (summaries of jobs at
// their limits), far under the message cap.
inline constexpr std::size_t kMaxListPageBytes = 4u << 20;
// A principal's name as a list filter (owner).
inline constexpr std::size_t kMaxOwnerFilterBytes = 256;
// Largest gRPC message synergyd accepts, either way: a job spec at its
// limits (64 KiB argv + 128 KiB env) and a node's full inventory fit many
// times over. A heartbeat with both process lists at their caps and every
// reason at 1 KiB would not; the message cap is the outer bound there.
inline constexpr int kMaxGrpcMessageBytes = 4 * 1024 * 1024;

}  // namespace synergy::service
