#pragma once
// One verb on several jobs (`synergyctl cancel A B`, `cancel --user alice
// --state queued --yes`, and hold, release, requeue): each job in turn, a
// line for each (its id and what became of it, or why not), and an exit
// status that says whether all went through. Pure: the calls to synergyd
// are the caller's `act`.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

// The verb on one job: the job as it is after it, or why not.
using JobAct = std::function<grpc::Status(const std::string& id, v1::Job* after)>;

// Acts on `ids` in order; writes "ID DONE" (ID as tables show it: an
// array's job by its index; DONE from `done_text` of the
// job after) to `out` per success and "synergyctl: ID: MESSAGE" to `err`
// per refusal, then, for more than one job, "VERB: N of M" to `err`.
// 0 when every job went through; 2 when a refusal was INVALID_ARGUMENT
// (bad input); 1 otherwise.
int ActOnJobs(const std::string& verb, const std::vector<std::string>& ids, const JobAct& act,
              const std::function<std::string(const v1::Job&)>& done_text, std::ostream& out, std::ostream& err);

// Jobs a selector picked for `verb`: more than one needs `yes` (a selector
// is easy to get wrong, and cancel cannot be undone). Empty when it may go
// ahead; else the refusal to print (naming the count and the first ids).
std::string ConfirmSelection(const std::string& verb, const std::vector<std::string>& ids, bool yes);

}  // namespace synergy::cli
