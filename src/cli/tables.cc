#include "cli/tables.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/array_rows.h"
#include "cli/profile_view.h"
#include "service/durations.h"
#include "service/escape.h"
#include "service/names.h"

namespace synergy::cli {
namespace {

std::string Ids(const google::protobuf::RepeatedField<int32_t>& ids) {
  const std::string list = service::FormatIdList({ids.begin(), ids.end()});
  return list.empty() ? "-" : list;
}

std::string Time(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", absl::FromUnixMillis(unix_ms), absl::LocalTimeZone());
}

// A node that shut down cleanly has left; one that went silent is lost.
std::string NodeStatus(const v1::Node& n) {
  return n.leaving() ? (n.alive() ? "leaving" : "left") : (n.alive() ? "ready" : "lost");
}

// "2h3m ago: fan failing" (the reason, if given, after the time).
std::string DrainNote(const v1::Node& n, int64_t now_ms) {
  if (!n.drained()) return "-";
  std::string note = n.drained_unix_ms() > 0 ? Duration(now_ms - n.drained_unix_ms()) + " ago" : "earlier";
  if (!n.drain_reason().empty()) absl::StrAppend(&note, ": ", n.drain_reason());
  return note;
}

// The state as listed: a held job's says so, like a drained node's.
std::string ListedState(const v1::Job& j) {
  const bool ended = j.state() == v1::JOB_STATE_SUCCEEDED || j.state() == v1::JOB_STATE_FAILED ||
                     j.state() == v1::JOB_STATE_CANCELLED || j.state() == v1::JOB_STATE_TIMED_OUT;
  return j.held() && !ended ? service::JobStateName(j.state()) + ",held" : service::JobStateName(j.state());
}

// "Key:          value" as describe prints it, both escaped.
void AppendField(std::string& out, const std::string& key, const std::string& value) {
  absl::StrAppend(&out, absl::StrFormat("%-14s %s\n", service::EscapeForDisplay(key + ":"),
                                        service::EscapeForDisplay(value)));
}

}  // namespace

std::string StateName(v1::JobState s) { return service::JobStateName(s); }

std::string Duration(int64_t ms) {
  if (ms < 0) ms = 0;
  int64_t s = ms / 1000;
  if (s < 60) return absl::StrCat(s, "s");
  if (s < 3600) return absl::StrCat(s / 60, "m", s % 60, "s");
  if (s < 86400) return absl::StrCat(s / 3600, "h", (s % 3600) / 60, "m");
  return absl::StrCat(s / 86400, "d", (s % 86400) / 3600, "h");
}

// A waiting job's reason with the time to the next round, as the daemon
// said when it was read: "waiting for resources; next round in 42s".
std::string ReasonNow(const v1::Job& j, int64_t now_ms) {
  if (j.next_round_unix_ms() <= 0) return j.reason();
  return absl::StrCat(j.reason(), "; next round in ", Duration(j.next_round_unix_ms() - now_ms));
}

std::string Table(const std::vector<std::vector<std::string>>& raw_rows) {
  // Every cell escaped, whatever the daemon sent: a name cannot move the
  // cursor or forge a row.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(raw_rows.size());
  for (const auto& r : raw_rows) {
    std::vector<std::string>& row = rows.emplace_back();
    for (const std::string& cell : r) row.push_back(service::EscapeForDisplay(cell));
  }
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string JobRowSignature(const v1::Job& job) {
  std::string nodes;
  for (const v1::LeaseSlice& slice : job.lease().slices()) absl::StrAppend(&nodes, slice.node(), ",");
  return absl::StrCat(job.state(), "|", job.reason(), "|", job.lease().epoch(), "|", nodes, "|", job.held(), "|",
                      job.spec().priority(), "|", job.attempts());
}

namespace {

std::vector<std::string> JobRow(const v1::Job& j, bool wide, int64_t now_ms) {
  const std::string progress =
      j.spec().iterations() > 0 ? absl::StrFormat("%d/%d", j.iterations_done(), j.spec().iterations()) : "-";
  std::vector<std::string> nodes;
  int cpus = 0;
  double mem = 0;
  for (const v1::LeaseSlice& s : j.lease().slices()) {
    nodes.push_back(s.node());
    cpus += s.cpu_ids_size();
    mem += s.mem_gb();
  }
  const std::string node_list = nodes.empty() ? "-" : absl::StrJoin(nodes, ",");
  const std::string name = j.spec().name().empty() ? "-" : j.spec().name();
  const std::string age = Duration(now_ms - j.submitted_unix_ms());
  if (!wide) return {ListedId(j), name, ListedState(j), std::to_string(j.spec().gpus()), progress, age, node_list,
                     ReasonNow(j, now_ms)};
  return {ListedId(j), name, ListedState(j), std::to_string(j.spec().gpus()),
          j.spec().model().empty() ? "-" : j.spec().model(), progress,
          j.throughput() > 0 ? absl::StrFormat("%.1f", j.throughput()) : "-", age,
          j.has_lease() ? std::to_string(j.lease().epoch()) : "-", node_list,
          j.has_lease() ? std::to_string(cpus) : "-", j.has_lease() ? absl::StrFormat("%.1f", mem) : "-",
          std::to_string(j.attempts()), std::to_string(j.spec().priority()), ReasonNow(j, now_ms)};
}

// An array's jobs in one row: its indices, each state's count, jobs ended
// of those listed as the progress, the nodes of all, and the reason of the
// first that waits.
std::vector<std::string> ArrayRow(const std::vector<const v1::Job*>& group, int64_t now_ms) {
  const v1::Job& first = *group.front();
  std::vector<std::string> nodes;
  int ended = 0;
  std::string reason = "-";
  for (const v1::Job* j : group) {
    for (const v1::LeaseSlice& s : j->lease().slices()) {
      if (std::find(nodes.begin(), nodes.end(), s.node()) == nodes.end()) nodes.push_back(s.node());
    }
    const bool done = j->finished_unix_ms() > 0;
    ended += done ? 1 : 0;
    if (reason == "-" && !done && !j->has_lease()) reason = ReasonNow(*j, now_ms);
  }
  return {FoldedId(group), first.spec().name().empty() ? "-" : first.spec().name(), StateCounts(group),
          std::to_string(first.spec().gpus()), absl::StrFormat("%d/%d ended", ended, group.size()),
          Duration(now_ms - first.submitted_unix_ms()), nodes.empty() ? "-" : absl::StrJoin(nodes, ","), reason};
}

}  // namespace

std::string JobsTable(const std::vector<v1::Job>& jobs, bool wide, int64_t now_ms) {
  std::vector<std::vector<std::string>> rows;
  if (wide) {
    rows.push_back({"ID", "NAME", "STATE", "GPUS", "MODEL", "PROGRESS", "IT/S", "AGE", "LEASE", "NODES", "CPUS",
                    "MEM GB", "ATTEMPTS", "PRIO", "REASON"});
    for (const v1::Job& j : jobs) rows.push_back(JobRow(j, true, now_ms));
    return Table(rows);
  }
  rows.push_back({"ID", "NAME", "STATE", "GPUS", "PROGRESS", "AGE", "NODES", "REASON"});
  for (const std::vector<const v1::Job*>& group : GroupByArray(jobs)) {
    rows.push_back(group.size() > 1 ? ArrayRow(group, now_ms) : JobRow(*group.front(), false, now_ms));
  }
  return Table(rows);
}

std::string NodesTable(const std::vector<v1::Node>& nodes, bool wide, int64_t now_ms) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"NAME", "STATUS", "GPUS", "CPUS", "MEM GB", "JOBS", "LAST SEEN"};
  if (wide) {
    // Cgroups (a line of its own, often long) are describe node's.
    head.insert(head.end(), {"ADDRESS", "GPU IDS", "CPU IDS", "DRAINED"});
  }
  rows.push_back(head);
  for (const v1::Node& n : nodes) {
    std::string status = NodeStatus(n);
    if (n.drained()) status += ",drained";
    std::vector<std::string> row = {
        n.name(), status,
        absl::StrFormat("%d/%d%s", n.allocated().gpu_ids_size(), n.capacity().gpu_ids_size(),
                        n.capacity().gpus_declared() ? " (declared)" : ""),
        absl::StrFormat("%d/%d", n.allocated().cpu_ids_size(), n.capacity().cpu_ids_size()),
        absl::StrFormat("%.1f/%.1f", n.allocated().mem_gb(), n.capacity().mem_gb()),
        n.jobs_size() ? absl::StrJoin(n.jobs(), ",") : "-",
        Duration(now_ms - n.last_heartbeat_unix_ms()) + " ago"};
    if (wide) {
      row.insert(row.end(), {n.address(), Ids(n.capacity().gpu_ids()), Ids(n.capacity().cpu_ids()), DrainNote(n, now_ms)});
    }
    rows.push_back(row);
  }
  return Table(rows);
}

std::string DescribeNode(const v1::Node& n, int64_t now_ms) {
  std::string out;
  auto line = [&](const std::string& k, const std::string& v) { AppendField(out, k, v); };
  std::string status = NodeStatus(n);
  if (n.drained()) status += ", drained (no new leases)";
  line("Name", n.name());
  line("Status", status);
  if (n.drained()) line("Drained", DrainNote(n, now_ms));
  line("Address", n.address().empty() ? "-" : n.address());
  line("GPUs", absl::StrFormat("%d of %d allocated; ids %s, allocated %s%s", n.allocated().gpu_ids_size(),
                               n.capacity().gpu_ids_size(), Ids(n.capacity().gpu_ids()), Ids(n.allocated().gpu_ids()),
                               n.capacity().gpus_declared() ? " (declared: none visible)" : ""));
  line("GPU type", n.capacity().gpu_type().empty() ? "-" : n.capacity().gpu_type());
  line("CPUs", absl::StrFormat("%d of %d allocated; ids %s, allocated %s", n.allocated().cpu_ids_size(),
                               n.capacity().cpu_ids_size(), Ids(n.capacity().cpu_ids()), Ids(n.allocated().cpu_ids())));
  line("Memory", absl::StrFormat("%.1f of %.1f GB allocated", n.allocated().mem_gb(), n.capacity().mem_gb()));
  const v1::ForeignUse& other = n.foreign();
  if (other.gpus() > 0 || other.cpus() > 0 || other.mem_gb() > 0) {
    // Shared with work synergyd does not run (Slurm jobs of other users or
    // partitions): planned around.
    line("Other work", absl::StrFormat("%d GPUs, %d CPUs, %.1f GB held by jobs that are not synergyd's (not planned)",
                                       other.gpus(), other.cpus(), other.mem_gb()));
  }
  line("Jobs", n.jobs_size() ? absl::StrJoin(n.jobs(), ", ") : "-");
  line("Cgroups", n.cgroups().empty() ? "-" : n.cgroups());
  line("Last seen", n.last_heartbeat_unix_ms() > 0
                        ? absl::StrCat(Time(n.last_heartbeat_unix_ms()), " (", Duration(now_ms - n.last_heartbeat_unix_ms()),
                                       " ago)")
                        : "-");
  return out;
}

// How the job's profile is known: measured, given in its spec, its zoo
// model's, or none.
std::string ProfileLine(const v1::Job& j) {
  if (j.has_measured_profile()) {
    const std::string& type = j.measured_profile().gpu_type();
    return absl::StrFormat("measured: %d points in %.1f s (lease %d%s)", j.measured_profile().points_size(),
                           j.measured_profile().seconds(), j.measured_profile().epoch(), type.empty() ? "" : ", on " + type);
  }
  if (j.spec().profile_points_size() > 0) {
    const std::string& type = j.spec().profile_gpu_type();
    return absl::StrFormat("given in its spec: %d points%s", j.spec().profile_points_size(),
                           type.empty() ? "" : ", measured on " + type);
  }
  return j.spec().model().empty() ? "none (proportional share)" : "zoo model " + j.spec().model();
}

// The lease's line and one per rank (or "-" without a lease).
void AppendLease(std::string& out, const v1::Job& j) {
  if (!j.has_lease()) {
    AppendField(out, "Lease", "-");
    return;
  }
  std::string resized;
  if (j.lease().revision() > 0) {
    resized = absl::StrFormat(", revision %d (resized %s; the job applied %d)", j.lease().revision(),
                              Time(j.lease().resized_unix_ms()), j.lease().applied_revision());
  } else if (j.lease().resizable()) {
    resized = ", resizable in place";
  }
  AppendField(out, "Lease", absl::StrFormat("epoch %d, granted %s, speedup %.2f%s", j.lease().epoch(),
                                            Time(j.lease().granted_unix_ms()), j.lease().speedup(), resized));
  for (const v1::LeaseSlice& s : j.lease().slices()) {
    AppendField(out, "  rank " + std::to_string(s.rank()),
                absl::StrFormat("%s gpus %s cpus %s mem %.1f GB", s.node(), Ids(s.gpu_ids()), Ids(s.cpu_ids()),
                                s.mem_gb()));
  }
}

std::string DescribeJob(const v1::Job& j, int64_t now_ms) {
  std::string out;
  auto line = [&](const std::string& k, const std::string& v) { AppendField(out, k, v); };
  line("ID", j.array_id().empty() ? j.id()
                                  : absl::StrCat(j.id(), " (", ListedId(j), ": index ", j.array_index(), " of array ",
                                                 j.array_id(), ", ", j.spec().array(), ")"));
  if (j.spec().after_ok_size() > 0) line("After ok", absl::StrJoin(j.spec().after_ok(), ", "));
  if (j.spec().after_any_size() > 0) line("After any", absl::StrJoin(j.spec().after_any(), ", "));
  line("Name", j.spec().name().empty() ? "-" : j.spec().name());
  line("State", StateName(j.state()));
  line("Reason", ReasonNow(j, now_ms));
  if (j.next_round_unix_ms() > 0) {
    line("Next round", absl::StrCat(Time(j.next_round_unix_ms()), " (in ", Duration(j.next_round_unix_ms() - now_ms),
                                    "; jobs ahead ", j.jobs_ahead(), ")"));
  }
  if (j.held()) {
    line("Held", absl::StrCat("by ", j.held_by_admin() ? "admin " : "", j.held_by(), " (synergyctl release ", j.id(),
                              j.held_by_admin() ? ", an admin's" : "", ")"));
  }
  line("GPUs", std::to_string(j.spec().gpus()));
  line("Model", j.spec().model().empty() ? "-" : j.spec().model());
  line("Command", absl::StrJoin(j.spec().command(), " "));
  line("Agent", j.spec().uses_agent() ? "yes" : "no (plain process)");
  line("Priority", j.spec().priority() == 0 ? "0 (default class)" : std::to_string(j.spec().priority()));
  if (!j.spec().tenant().empty()) line("Tenant", j.spec().tenant());
  line("Submitted", absl::StrCat(Time(j.submitted_unix_ms()), " (", Duration(now_ms - j.submitted_unix_ms()), " ago)"));
  if (j.finished_unix_ms() > 0) line("Finished", absl::StrCat(Time(j.finished_unix_ms()), " (JCT ", Duration(j.finished_unix_ms() - j.submitted_unix_ms()), ")"));
  if (j.spec().iterations() > 0) {
    line("Progress", absl::StrFormat("%d of %d iterations (%.1f%%)", j.iterations_done(), j.spec().iterations(),
                                     100.0 * j.iterations_done() / j.spec().iterations()));
  }
  if (j.throughput() > 0) line("Throughput", absl::StrFormat("%.2f it/s", j.throughput()));
  line("Checkpoint", j.checkpoint_path().empty() ? "-" : absl::StrFormat("iteration %d at %s", j.checkpoint_iteration(), j.checkpoint_path()));
  line("Attempts", j.resizes() > 0 ? absl::StrFormat("%d (resized in place %d times)", j.attempts(), j.resizes())
                                   : std::to_string(j.attempts()));
  line("Profile", ProfileLine(j));
  absl::StrAppend(&out, ProfileTable(j));
  if (const std::string allocation = AllocationLine(j); !allocation.empty()) line("Allocation", allocation);
  line("Service", Duration(j.attained_service_ms()) + " holding its GPUs");
  line("Run time", j.spec().time_limit_s() > 0
                       ? absl::StrCat(Duration(j.run_ms()), " of its time limit of ",
                                      service::FormatDurationSeconds(j.spec().time_limit_s()))
                       : absl::StrCat(Duration(j.run_ms()), " (no time limit)"));
  AppendLease(out, j);
  absl::StrAppend(&out, "Events:\n");
  for (const v1::JobEvent& e : j.events()) {
    absl::StrAppend(&out, "  ", Time(e.unix_ms()), "  ", service::EscapeForDisplay(e.text()), "\n");
  }
  return out;
}

std::string ClusterSummary(const v1::ClusterState& c) {
  std::string out;
  absl::StrAppendFormat(&out, "Nodes:     %d ready of %d\n", c.nodes_alive(), c.nodes());
  absl::StrAppendFormat(&out, "GPUs:      %d of %d allocated\n", c.allocated_gpus(), c.gpus());
  absl::StrAppendFormat(&out, "CPUs:      %.0f of %.0f allocated\n", c.allocated_cpus(), c.cpus());
  absl::StrAppendFormat(&out, "Memory:    %.1f of %.1f GB allocated\n", c.allocated_mem_gb(), c.mem_gb());
  std::vector<std::string> states;
  for (int state = v1::JOB_STATE_PENDING; state <= v1::JOB_STATE_TIMED_OUT; ++state) {
    const std::string s = StateName(static_cast<v1::JobState>(state));
    auto it = c.jobs_by_state().find(s);
    if (it != c.jobs_by_state().end() && it->second > 0) states.push_back(absl::StrCat(it->second, " ", s));
  }
  absl::StrAppendFormat(&out, "Jobs:      %s\n", states.empty() ? "none" : absl::StrJoin(states, ", "));
  absl::StrAppendFormat(&out, "Scheduler: %s / %s, round %d (last decision %.3f ms)\n",
                        service::EscapeForDisplay(c.policy()), service::EscapeForDisplay(c.mechanism()), c.round(),
                        c.last_round_ms());
  return out;
}

}  // namespace synergy::cli
