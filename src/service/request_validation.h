#pragma once
// The bounds check of every request message of synergyd's three services,
// one function per message, each a pure function of the message: call it
// first, before the daemon looks anything up. The limits are in
// request_limits.h; what needs the daemon's state (is the model in the zoo,
// does the cluster have the GPUs, is the lease current) is checked after,
// by ValidateJobSpec (job_spec.h) and DaemonState.
//
// Failures are InvalidArgument with the message
//   "<field path>: <value> <why>"
// e.g. "spec.env: 'A B' is not a POSIX name ([A-Za-z_][A-Za-z0-9_]*)" or
// "running[12].epoch: -1 is negative". Strings are quoted with
// QuoteForMessage (escaped, cut at 64 characters), so a refusal never
// echoes a client's megabyte or escape sequence.
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "service/escape.h"
#include "service/request_limits.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::service {

// [A-Za-z_][A-Za-z0-9_]*: a name every shell and execve caller agrees on.
bool IsPosixEnvName(absl::string_view name);
// One or more of [A-Za-z0-9._-], but not "." or "..": node names and job ids.
bool IsNameToken(absl::string_view name);

// Every field of a job spec that can be judged without the cluster: text
// lengths and characters, argv and env sizes, env names (POSIX, not
// SYNERGY_*), gpus in 1..kMaxJobGpus, a non-empty command[0], iterations in
// 0..kMaxIterations, max_retries in -1..kMaxRetries, priority in
// 0..kMaxPriorityClass. `path` prefixes field names ("spec").
absl::Status ValidateJobSpecFields(const v1::JobSpec& spec, absl::string_view path = "spec");

// A node's inventory: at most kMaxNodeGpuIds GPU and kMaxNodeCpuIds CPU
// ids, each unique in its list and in 0..kMaxDeviceId; mem_gb finite in
// (0, kMaxMemoryGb].
absl::Status ValidateNodeResources(const v1::NodeResources& resources, absl::string_view path);
// What other work holds on a node: gpus in 0..kMaxNodeGpuIds, cpus in
// 0..kMaxNodeCpuIds, mem_gb finite in [0, kMaxMemoryGb]. (More than the
// node has is not refused: Slurm may count what synergyd was not told.)
absl::Status ValidateForeignUse(const v1::ForeignUse& foreign, absl::string_view path);

// --- SchedulerService
absl::Status ValidateSubmitJobRequest(const v1::SubmitJobRequest& request);
absl::Status ValidateCancelJobRequest(const v1::CancelJobRequest& request);
absl::Status ValidateGetJobRequest(const v1::GetJobRequest& request);
// States known to the enum (UNSPECIFIED included: it matches nothing), at
// most kMaxListStates of them; page_size 0 to kMaxListPageSize; a page
// token, owner and tenant of the shapes they have; submitted_since >= 0.
absl::Status ValidateListJobsRequest(const v1::ListJobsRequest& request);
absl::Status ValidateListNodesRequest(const v1::ListNodesRequest& request);      // no fields
absl::Status ValidateClusterStateRequest(const v1::ClusterStateRequest& request);  // no fields
// DrainNode and UndrainNode: a node name; a reason of printable text, at
// most kMaxDrainReasonBytes (UndrainNode takes none).
absl::Status ValidateDrainNodeRequest(const v1::DrainNodeRequest& request);
// A job id; epoch >= 0; rank in 0..kMaxJobGpus-1; offset >= 0; max_bytes
// in 0..kMaxLogChunkBytes.
absl::Status ValidateJobLogsRequest(const v1::JobLogsRequest& request);
// HoldJob, ReleaseJob, RequeueJob: a job id.
absl::Status ValidateJobActionRequest(const v1::JobActionRequest& request);
// A job id, and at least one field to change: priority in
// 0..kMaxPriorityClass.
absl::Status ValidateUpdateJobRequest(const v1::UpdateJobRequest& request);

// --- NodeService
absl::Status ValidateRegisterNodeRequest(const v1::RegisterNodeRequest& request);
absl::Status ValidateHeartbeatRequest(const v1::HeartbeatRequest& request);

// A node name; offset and size >= 0; at most kMaxLogChunkBytes of data;
// the error printable, at most kMaxReasonBytes.
absl::Status ValidateLogChunk(const v1::LogChunk& chunk);

// --- AgentService
absl::Status ValidateAgentHello(const v1::AgentHello& hello);
absl::Status ValidateProgressReport(const v1::ProgressReport& report);
absl::Status ValidateCheckpointDone(const v1::CheckpointDone& done);
// At most kMaxProfilePoints points, each with cpus in (0, kMaxProfileCpus],
// mem_gb in (0, kMaxMemoryGb], throughput in [0, kMaxThroughput], all
// finite; seconds finite and >= 0. (An empty profile is DaemonState's to
// refuse.)
absl::Status ValidateMeasuredProfile(const v1::MeasuredProfile& profile);

}  // namespace synergy::service
