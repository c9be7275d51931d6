#pragma once
// A job's dependencies (JobSpec.after_ok, after_any; Slurm's afterok and
// afterany), judged from the states of the jobs they name. Pure: the caller
// says how to find a job's state and an array's jobs.
//
// Contract:
//  - after_ok J is met once J succeeded; it can never be met once J ended
//    any other way (failed, cancelled, timed out): the dependent job is
//    then cancelled, naming J.
//  - after_any J is met once J ended, however.
//  - A name that is an array's id stands for every job of the array: met
//    once all are; never met once one of them is (after_ok).
//  - A job that cannot be found (retired past the store's history, or never
//    known) is treated as ended without success: after_any is met, after_ok
//    never is. synergyd refuses unknown ids at submission, so this is only
//    a job forgotten since.
// The first dependency not met decides what is said; the order is after_ok
// then after_any, each as listed.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "synergy/v1/synergy.pb.h"

namespace synergy::daemon {

struct DependencyCheck {
  enum class Outcome { kMet, kWaiting, kNeverMet };
  Outcome outcome = Outcome::kMet;
  std::string job;                    // the job it waits for, or that cannot succeed
  std::string named;                  // as the spec names it (an array's id for its job)
  bool of_array = false;              // `named` is an array's id; `job` one of its jobs
  bool after_ok = false;              // which list named it
  std::optional<v1::JobState> state;  // that job's state (nullopt: not found)
};

// A job's state; nullopt when synergyd does not know it;
// JOB_STATE_UNSPECIFIED when it cannot say now (the dependency waits).
using JobStateOf = std::function<std::optional<v1::JobState>(const std::string& id)>;
// An array's jobs when `id` is an array's id; empty for a job of its own
// (or an unknown one).
using ArrayJobsOf = std::function<std::vector<std::string>(const std::string& id)>;

DependencyCheck CheckDependencies(const v1::JobSpec& spec, const JobStateOf& state_of,
                                  const ArrayJobsOf& array_jobs_of);

// "waiting for j-000012 to succeed (after_ok; it is running)", "j-000012
// (after_ok) ended failed: it can never succeed" and the like.
std::string DescribeDependency(const DependencyCheck& check);

}  // namespace synergy::daemon
