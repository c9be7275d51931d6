#pragma once
// How `synergyctl get jobs` shows job arrays: an array's jobs folded into
// one row ("j-000100[0-99]", its jobs counted by state) unless -o wide,
// and an array's job named by its index ("j-000100_3"). Pure.
#include <string>
#include <vector>

#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

// `jobs` in their order, each array's jobs gathered where its first listed
// job is: one group per array, one per job of its own.
std::vector<std::vector<const v1::Job*>> GroupByArray(const std::vector<v1::Job>& jobs);

// "j-000100_3" for an array's job (the name every verb takes), else its id.
std::string ListedId(const v1::Job& job);

// "j-000100[0-3,7]": the array and the indices of `group` (jobs of one
// array).
std::string FoldedId(const std::vector<const v1::Job*>& group);

// "2 running, 1 queued, 5 succeeded": `group`'s jobs by state, in the
// order states are declared.
std::string StateCounts(const std::vector<const v1::Job*>& group);

}  // namespace synergy::cli
