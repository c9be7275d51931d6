#include "daemon/state/dependencies.h"

#include "absl/strings/str_cat.h"
#include "daemon/state/job_lifecycle.h"
#include "service/names.h"

namespace synergy::daemon {
namespace {

// One named dependency: kMet, or what it waits on / cannot meet.
DependencyCheck CheckOne(const std::string& named, bool after_ok, const JobStateOf& state_of,
                         const ArrayJobsOf& array_jobs_of) {
  std::vector<std::string> jobs = array_jobs_of(named);
  const bool of_array = !jobs.empty();
  if (!of_array) jobs.push_back(named);
  DependencyCheck waiting;
  for (const std::string& id : jobs) {
    DependencyCheck c;
    c.job = id;
    c.named = named;
    c.after_ok = after_ok;
    c.of_array = of_array;
    c.state = state_of(id);
    const bool ended = !c.state || IsTerminal(*c.state);
    const bool succeeded = c.state && *c.state == v1::JOB_STATE_SUCCEEDED;
    if (after_ok && ended && !succeeded) {
      c.outcome = DependencyCheck::Outcome::kNeverMet;
      return c;  // one that cannot succeed decides, whatever the others do
    }
    if (!ended && waiting.outcome == DependencyCheck::Outcome::kMet) {
      c.outcome = DependencyCheck::Outcome::kWaiting;
      waiting = c;
    }
  }
  return waiting;
}

}  // namespace

DependencyCheck CheckDependencies(const v1::JobSpec& spec, const JobStateOf& state_of,
                                  const ArrayJobsOf& array_jobs_of) {
  DependencyCheck first_wait;
  for (const auto* list : {&spec.after_ok(), &spec.after_any()}) {
    const bool after_ok = list == &spec.after_ok();
    for (const std::string& named : *list) {
      DependencyCheck c = CheckOne(named, after_ok, state_of, array_jobs_of);
      if (c.outcome == DependencyCheck::Outcome::kNeverMet) return c;
      if (c.outcome == DependencyCheck::Outcome::kWaiting && first_wait.outcome == DependencyCheck::Outcome::kMet) {
        first_wait = std::move(c);
      }
    }
  }
  return first_wait;
}

std::string DescribeDependency(const DependencyCheck& check) {
  const char* list = check.after_ok ? "after_ok" : "after_any";
  const std::string job = check.of_array ? absl::StrCat(check.job, " of array ", check.named) : check.job;
  const std::string state = !check.state                                ? "unknown to synergyd"
                            : *check.state == v1::JOB_STATE_UNSPECIFIED ? "not readable now"
                                                                        : service::JobStateName(*check.state);
  switch (check.outcome) {
    case DependencyCheck::Outcome::kMet:
      return "dependencies met";
    case DependencyCheck::Outcome::kWaiting:
      return absl::StrCat("waiting for ", job, check.after_ok ? " to succeed" : " to end", " (", list, "; it is ",
                          state, ")");
    case DependencyCheck::Outcome::kNeverMet:
      return absl::StrCat("dependency ", job, " (", list, ") ",
                          check.state ? absl::StrCat("ended ", state) : "is no longer known to synergyd",
                          ": it can never be met");
  }
  return "";
}

}  // namespace synergy::daemon
