#pragma once
// synergyctl's output for people: aligned tables in the manner of kubectl
// and squeue (JSON and YAML: message_output.h). Tables and describe output
// show every string with its control characters escaped
// (service::EscapeForDisplay: ESC as \x1b, a newline as \n), whatever the
// daemon sends.
#include <string>
#include <vector>

#include "synergy/v1/synergy.pb.h"

namespace synergy::cli {

// Columns padded to their widest cell, two spaces apart; cells escaped.
std::string Table(const std::vector<std::vector<std::string>>& rows);

// One row per job; an array's jobs listed together fold into one row
// (cli/array_rows.h) unless `wide`. An array's job is named by its index.
std::string JobsTable(const std::vector<v1::Job>& jobs, bool wide, int64_t now_ms);
// What a job's row says but the clock (its age, progress and speed move on
// their own): state, reason, lease and its nodes, hold, priority. `get
// jobs -w` shows a row again when this changes.
std::string JobRowSignature(const v1::Job& job);
std::string NodesTable(const std::vector<v1::Node>& nodes, bool wide, int64_t now_ms);
std::string DescribeJob(const v1::Job& job, int64_t now_ms);
// A node in full: status, address, what it offers and what leases hold
// (ids), the jobs on it, its cgroups, when it was last heard from.
std::string DescribeNode(const v1::Node& node, int64_t now_ms);
std::string ClusterSummary(const v1::ClusterState& state);

std::string StateName(v1::JobState state);   // "running"
std::string Duration(int64_t ms);            // "3m12s"

}  // namespace synergy::cli
