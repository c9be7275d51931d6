#pragma once
// How `synergyctl describe job` shows a job's profile: its measured points
// (or its spec's) as a table of CPUs x memory -> iterations per second,
// with the knee TUNE asks for marked (synergy/measured_model.h), and what
// the last round gave it against that knee. Pure.
#include <string>

#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

// "  CPUS  MEM GB  IT/S\n  2     16.0    11.00\n  4 ... <- knee ..."; ""
// for a job without points.
std::string ProfileTable(const v1::Job& job);

// "4 CPUs, 24.0 GB (predicted speedup 1.45; the knee: 4 CPUs, 16.0 GB)":
// the allocation the job's lease holds, the speedup the round predicted,
// and its knee where it has points; "" without a lease.
std::string AllocationLine(const v1::Job& job);

}  // namespace synergy::cli
