#pragma once
// What synergyd's Slurm executor (issue 19, docs/slurm.md) reads of a Slurm
// cluster: its nodes (`sinfo --json`) and jobs (`squeue --json`), as Slurm
// 22.05 writes them (OpenAPI v0.0.38), reduced to what the executor uses.
// Pure: text in, records out. Every value is bounded where it is read, and
// text that is not Slurm's gets an error naming the field and the value;
// no input crashes it (tests/fuzz/slurm_json_fuzz.cc).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace synergy::slurm {

// Text longer than this is refused: a cluster of 65,536 nodes writes a few
// MB; a queue of 100,000 jobs about 1.5 GB would be, so squeue's is bounded
// by the jobs it lists instead (kMaxJobs).
inline constexpr size_t kMaxJsonBytes = 256u << 20;
inline constexpr size_t kMaxNodes = 65536;
inline constexpr size_t kMaxJobs = 100000;

// GPUs, CPUs and memory (MB) of one node.
struct SlurmResources {
  int gpus = 0;
  int cpus = 0;
  int64_t memory_mb = 0;
  bool operator==(const SlurmResources&) const = default;
};

struct SlurmNode {
  std::string name;
  std::string address;                   // NodeAddr ("" when Slurm gives none)
  std::string state;                     // as Slurm writes it: "idle", "mixed", "down", ...
  std::vector<std::string> state_flags;  // "DRAIN", "NOT_RESPONDING", ...
  // Slurm would run a job there now: up (idle, mixed, allocated or
  // completing) with no flag that keeps jobs off (drain, not responding,
  // maintenance, powered down or powering, reboot, fail).
  bool usable = false;
  // Up, but drained (or draining) by an admin: its jobs may run on, new
  // ones are not placed there.
  bool drained = false;
  int cpus = 0;
  int64_t memory_mb = 0;  // RealMemory
  // GPUs from its gres ("gpu:2", "gpu:a100:2(S:0-1)", several entries
  // summed) and the type named there ("" when none or several).
  int gpus = 0;
  std::string gpu_type;
  std::vector<std::string> partitions;
  // What Slurm has allocated there now, to any job of any partition
  // (alloc_cpus, alloc_memory, the GPUs of gres_used).
  SlurmResources allocated;
};
// The nodes of `partition` ("" every node); nodes of other partitions are
// skipped unread, so that another partition's oddities never hide ours.
// A document with Slurm's "errors" (slurmctld unreachable: 22.05 exits 0
// with empty lists) is UNAVAILABLE, not an empty cluster; squeue's too.
absl::StatusOr<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text, std::string_view partition = "");

// Where a Slurm job is in its life, for the executor: waiting for its
// node, with processes (running, configuring, completing, suspended), or
// over (any other state Slurm gives it).
enum class JobPhase { kPending, kRunning, kEnded };

struct SlurmJob {
  int64_t id = 0;
  // Who runs it: a lease's job runs as its owner; a job of a lease's name
  // run by anyone else is not the lease's (the executor checks).
  int64_t user_id = 0;
  std::string name;
  std::string state;  // as Slurm writes it: "PENDING", "RUNNING", "FAILED", ...
  JobPhase phase = JobPhase::kPending;
  // When ended: the batch script's exit code, or the signal that ended it
  // (from the wait status Slurm reports).
  int exit_code = 0;
  int signal = 0;
  // squeue's end_time: when it ended (ended jobs), else when its time
  // limit ends it; 0 when not given.
  int64_t end_unix_s = 0;
  std::string nodes;  // as Slurm writes them: "sn1", "sn[1-2]"; "" while pending
  // The nodes it was submitted for (--nodelist): a lease's one node, known
  // while it waits too.
  std::string required_nodes;
  std::string partition;
  // What it holds on its node while it runs: its CPUs, its GPUs per node
  // (tres_per_node), its memory per node (memory_per_node, else
  // memory_per_cpu times its CPUs). Meant for a lease's job (one node).
  SlurmResources holds;
};
// The jobs named as leases (SlurmJobName) in `partition` ("" any); every
// other job in the queue (other users', other partitions') is skipped
// unread.
absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text, std::string_view partition = "");

// The Slurm job name of a lease: "synergy-<job id>-<epoch>", so that the
// executor finds its leases' Slurm jobs again after a restart from Slurm's
// own records; and the lease of a name (nullopt for any other name, for a
// job id synergyd would not give (service/request_validation.h
// IsNameToken, at most kMaxJobIdBytes), and for an epoch written with
// leading zeros: one name a lease).
std::string SlurmJobName(std::string_view job_id, int64_t epoch);
struct LeaseKey {
  std::string job_id;
  int64_t epoch = 0;
  bool operator==(const LeaseKey&) const = default;
};
std::optional<LeaseKey> LeaseOfSlurmJobName(std::string_view name);

}  // namespace synergy::slurm
