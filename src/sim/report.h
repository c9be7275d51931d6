#pragma once
// What a run reports: the summary numbers and the files in --out DIR
//   jobs.csv         job_id,model,gpus,arrival_s,start_s,finish_s,jct_s,restarts,resizes
//                    (and gpu_type, the type of its last round, on a cluster of several)
//   summary.json     the Summary below, with the run's settings
//   utilisation.csv  time_s,gpu_util,cpu_util,mem_util,running,queued
// Files are written under temporary names and renamed into place, and
// summary.json goes last: a DIR with a summary.json holds a complete run.
#include <map>
#include <variant>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "sim/simulator.h"
#include "synergy/model_zoo.h"

namespace synergy::sim {

struct Summary {
  int64_t jobs = 0;  // measured jobs that finished
  int64_t timed_out = 0;  // of those, ended by their time limit (JobRecord::timed_out)
  int64_t unfinished = 0;
  double mean_jct_h = 0;
  double p50_jct_h = 0;
  double p99_jct_h = 0;
  double makespan_h = 0;  // last finish - first arrival, measured jobs
  // Allocated share of the cluster, time-averaged over the run.
  double mean_gpu_util = 0;
  double mean_cpu_util = 0;
  double mean_mem_util = 0;
  // Default mode: the share of GPU time in which a job ran (held GPUs and
  // had not finished), and the GPU-hours no job ran on while a job waited
  // (also as a share of all GPU-hours of the run); jobs launched between
  // rounds (simulator.h).
  double busy_gpu_util = 0;
  double idle_gpu_h_while_waiting = 0;
  double idle_share_while_waiting = 0;
  int64_t launches_between_rounds = 0;
  int64_t rounds = 0;
  int64_t unplaced_after_revert = 0;
  double mean_throughput = 0;  // sum of speedups of running jobs, per round
  // OPT only (zero otherwise).
  int64_t solver_rounds = 0;
  int64_t solver_fallbacks = 0;
  int64_t solver_budget_rounds = 0;
  int64_t solver_stepped_down_rounds = 0;
  double mean_lp_bound = 0;
  double mean_realised = 0;
  // Restarts charged and resizes in place, over the measured jobs.
  int64_t restarts = 0;
  int64_t resizes = 0;
  // Clusters of several GPU types: per type, in Cluster::gpu_types order.
  struct ByGpuType {
    std::string gpu_type;
    int gpus = 0;
    double mean_gpu_util = 0;
    int64_t jobs = 0;  // measured jobs that finished on it
    double mean_jct_h = 0;  // theirs
  };
  std::vector<ByGpuType> by_gpu_type;
  // Runs whose jobs name tenants (a trace's tenant column): per tenant, by
  // name, its measured jobs that finished, their mean and p99 JCT and mean
  // wait (arrival to first start).
  struct ByTenant {
    std::string tenant;
    int64_t jobs = 0;
    double mean_jct_h = 0;
    double p99_jct_h = 0;
    double mean_wait_h = 0;
  };
  std::vector<ByTenant> by_tenant;
};

Summary Summarize(const SimResult& result, const Cluster& cluster, double round_s);

// Linear interpolation between closest ranks (numpy's default), p in [0, 100].
double Percentile(std::vector<double> values, double p);

// A run's setting in summary.json, written as its JSON type: text
// (policy, mechanism), a number (load_jobs_per_hour, seed, round_s) or a
// truth value (reference_compatible).
using Setting = std::variant<std::string, double, bool>;
absl::Status WriteReport(const std::string& dir, const SimResult& result,
                         const Summary& summary, const ModelZoo& zoo, const Cluster& cluster,
                         const std::map<std::string, Setting>& settings);

// "fifo/tune: 1000 jobs, mean JCT 12.34 h, p50 ..., p99 ..., makespan ...".
std::string OneLineSummary(const Summary& summary, const std::string& label);

}  // namespace synergy::sim
