#include "synergy/config_loader.h"
#include "service/request_validation.h"

#include <algorithm>
#include <set>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "service/job_arrays.h"
#include "service/job_spec.h"

namespace synergy::service {
namespace {

// What characters a string field may hold (request_limits.h says which
// field gets which).
enum class Chars {
  kPrintable,  // IsPrintableText
  kNameToken,  // IsNameToken
  kAddress,    // host names, IPv4, [IPv6%zone]
  kAnyButNul,  // valid UTF-8 without NUL: argv and env values
};

absl::Status Refuse(absl::string_view path, absl::string_view value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", value, " ", why));
}

bool IsAddress(absl::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':' ||
           c == '%' || c == '[' || c == ']';
  });
}

// Length first: a megabyte is refused before anything reads it through.
absl::Status CheckText(absl::string_view path, absl::string_view value, std::size_t max_bytes, Chars chars,
                       bool required) {
  if (value.size() > max_bytes) {
    return Refuse(path, QuoteForMessage(value), absl::StrCat("is longer than ", max_bytes, " bytes"));
  }
  if (required && value.empty()) return Refuse(path, "''", "is empty");
  if (!IsValidUtf8(value)) return Refuse(path, QuoteForMessage(value), "is not valid UTF-8");
  switch (chars) {
    case Chars::kPrintable:
      if (!IsPrintableText(value)) return Refuse(path, QuoteForMessage(value), "contains a control character");
      break;
    case Chars::kNameToken:
      if (!value.empty() && !IsNameToken(value)) {
        return Refuse(path, QuoteForMessage(value), "may hold only letters, digits and . _ -");
      }
      break;
    case Chars::kAddress:
      if (!IsAddress(value)) {
        return Refuse(path, QuoteForMessage(value), "is not a host name or IP address");
      }
      break;
    case Chars::kAnyButNul:
      if (value.find('\0') != absl::string_view::npos) return Refuse(path, QuoteForMessage(value), "contains NUL");
      break;
  }
  return absl::OkStatus();
}

absl::Status CheckJobId(absl::string_view path, absl::string_view job_id) {
  return CheckText(path, job_id, kMaxJobIdBytes, Chars::kNameToken, /*required=*/true);
}

absl::Status CheckNodeName(absl::string_view path, absl::string_view name) {
  return CheckText(path, name, kMaxNodeNameBytes, Chars::kNameToken, /*required=*/true);
}

absl::Status CheckInt(absl::string_view path, int64_t value, int64_t lowest, int64_t highest) {
  if (value < lowest) {
    return Refuse(path, absl::StrCat(value), lowest == 0 ? "is negative" : absl::StrCat("is below ", lowest));
  }
  if (value > highest) return Refuse(path, absl::StrCat(value), absl::StrCat("is more than ", highest));
  return absl::OkStatus();
}

// A finite value in [lowest, highest], or (lowest, highest] when
// positive_only.
absl::Status CheckFinite(absl::string_view path, double value, double lowest, double highest, bool positive_only) {
  const std::string shown = absl::StrFormat("%g", value);
  if (!std::isfinite(value)) return Refuse(path, shown, "is not a finite number");
  // 1e-320 (a subnormal) and the like: no size, share or time of ours.
  if (value != 0 && std::fabs(value) < 1e-300) return Refuse(path, shown, "is too close to 0 to mean anything");
  const bool low = positive_only ? !(value > lowest) : value < lowest;
  if (low || value > highest) {
    return Refuse(path, shown, absl::StrFormat("is not in %c%g, %g]", positive_only ? '(' : '[', lowest, highest));
  }
  return absl::OkStatus();
}

absl::Status CheckIds(absl::string_view path, const google::protobuf::RepeatedField<int32_t>& ids, int max_count) {
  if (ids.size() > max_count) {
    return Refuse(path, absl::StrCat(ids.size(), " ids"), absl::StrCat("are more than ", max_count));
  }
  std::vector<bool> seen(kMaxDeviceId + 1, false);
  for (int i = 0; i < ids.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    if (ids[i] < 0 || ids[i] > kMaxDeviceId) {
      return Refuse(at, absl::StrCat(ids[i]), absl::StrCat("is not an id in 0..", kMaxDeviceId));
    }
    if (seen[ids[i]]) return Refuse(at, absl::StrCat(ids[i]), "is listed twice");
    seen[ids[i]] = true;
  }
  return absl::OkStatus();
}

// after_ok and after_any: job ids (or an array's job, "j-000100_3"), at
// most kMaxDependencies in all, none named twice.
absl::Status CheckDependencies(absl::string_view path, const v1::JobSpec& spec) {
  const int count = spec.after_ok_size() + spec.after_any_size();
  if (count > kMaxDependencies) {
    return Refuse(absl::StrCat(path, ".after_ok"), absl::StrCat(count, " dependencies"),
                  absl::StrCat("are more than ", kMaxDependencies));
  }
  std::set<std::string> seen;
  for (const auto* list : {&spec.after_ok(), &spec.after_any()}) {
    const char* name = list == &spec.after_ok() ? "after_ok" : "after_any";
    for (int i = 0; i < list->size(); ++i) {
      const std::string at = absl::StrCat(path, ".", name, "[", i, "]");
      if (auto st = CheckJobId(at, (*list)[i]); !st.ok()) return st;
      if (!seen.insert((*list)[i]).second) return Refuse(at, (*list)[i], "is named twice");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckCount(absl::string_view path, int count, int max_count, absl::string_view what) {
  if (count > max_count) {
    return Refuse(path, absl::StrCat(count, " ", what), absl::StrCat("are more than ", max_count));
  }
  return absl::OkStatus();
}

absl::Status CheckCommand(absl::string_view path, const google::protobuf::RepeatedPtrField<std::string>& command) {
  if (auto st = CheckCount(path, command.size(), kMaxCommandArgs, "arguments"); !st.ok()) return st;
  if (command.empty() || command[0].empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": required (the job's argv)"));
  }
  std::size_t total = 0;
  for (const std::string& arg : command) total += arg.size();
  if (total > kMaxCommandBytes) {
    return Refuse(path, absl::StrCat(total, " bytes"), absl::StrCat("in all are more than ", kMaxCommandBytes));
  }
  for (int i = 0; i < command.size(); ++i) {
    if (auto st = CheckText(absl::StrCat(path, "[", i, "]"), command[i], kMaxCommandBytes, Chars::kAnyButNul, false);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEnv(absl::string_view path, const google::protobuf::Map<std::string, std::string>& env) {
  if (auto st = CheckCount(path, static_cast<int>(env.size()), kMaxEnvVars, "variables"); !st.ok()) return st;
  // The map's order is unspecified: sorted, the first bad name reported is
  // the same every time.
  std::vector<const google::protobuf::Map<std::string, std::string>::value_type*> vars;
  std::size_t total = 0;
  for (const auto& kv : env) {
    vars.push_back(&kv);
    total += kv.first.size() + kv.second.size();
  }
  if (total > kMaxEnvBytes) {
    return Refuse(path, absl::StrCat(total, " bytes"),
                  absl::StrCat("of names and values are more than ", kMaxEnvBytes));
  }
  std::sort(vars.begin(), vars.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* var : vars) {
    const std::string& name = var->first;
    if (name.size() > kMaxEnvNameBytes) {
      return Refuse(path, QuoteForMessage(name), absl::StrCat("is longer than ", kMaxEnvNameBytes, " bytes"));
    }
    if (!IsPosixEnvName(name)) {
      return Refuse(path, QuoteForMessage(name), "is not a POSIX name ([A-Za-z_][A-Za-z0-9_]*)");
    }
    if (name.rfind("SYNERGY_", 0) == 0) {
      return Refuse(path, QuoteForMessage(name), "is not a variable name a job may set");
    }
    if (auto st = CheckText(absl::StrCat(path, ".", name), var->second, kMaxEnvValueBytes, Chars::kAnyButNul, false);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckRunning(absl::string_view path,
                          const google::protobuf::RepeatedPtrField<v1::RunningProcess>& running) {
  if (auto st = CheckCount(path, running.size(), kMaxProcessesPerHeartbeat, "processes"); !st.ok()) return st;
  for (int i = 0; i < running.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const v1::RunningProcess& p = running[i];
    if (auto st = CheckJobId(at + ".job_id", p.job_id()); !st.ok()) return st;
    if (auto st = CheckInt(at + ".epoch", p.epoch(), 0, INT64_MAX); !st.ok()) return st;
    // 0: the sender did not say (a pid is only logged).
    if (auto st = CheckInt(at + ".pid", p.pid(), 0, INT32_MAX); !st.ok()) return st;
    if (auto st = CheckInt(at + ".revision", p.revision(), 0, INT64_MAX); !st.ok()) return st;
    if (auto st = CheckFinite(at + ".mem_limit_gb", p.mem_limit_gb(), 0, kMaxMemoryGb, false); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status CheckExits(absl::string_view path, const google::protobuf::RepeatedPtrField<v1::ProcessExit>& exits) {
  if (auto st = CheckCount(path, exits.size(), kMaxProcessesPerHeartbeat, "exits"); !st.ok()) return st;
  for (int i = 0; i < exits.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const v1::ProcessExit& e = exits[i];
    if (auto st = CheckJobId(at + ".job_id", e.job_id()); !st.ok()) return st;
    if (auto st = CheckInt(at + ".epoch", e.epoch(), 0, INT64_MAX); !st.ok()) return st;
    if (auto st = CheckInt(at + ".exit_code", e.exit_code(), kMinExitCode, kMaxExitCode); !st.ok()) return st;
    if (auto st = CheckInt(at + ".signal", e.signal(), 0, kMaxSignal); !st.ok()) return st;
    if (auto st = CheckText(at + ".reason", e.reason(), kMaxReasonBytes, Chars::kPrintable, false); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// The (job_id, epoch) every agent message opens with.
absl::Status CheckLeaseKey(absl::string_view job_id, int64_t epoch) {
  if (auto st = CheckJobId("job_id", job_id); !st.ok()) return st;
  return CheckInt("epoch", epoch, 0, INT64_MAX);
}

// A measured profile's points, from an agent or in a job spec.
absl::Status CheckProfilePoints(absl::string_view path,
                                const google::protobuf::RepeatedPtrField<v1::ProfilePoint>& points) {
  if (auto st = CheckCount(path, points.size(), kMaxProfilePoints, "points"); !st.ok()) return st;
  std::set<double> cpus, mems;
  for (int i = 0; i < points.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    const v1::ProfilePoint& p = points[i];
    if (auto st = CheckFinite(at + ".cpus", p.cpus(), 0, kMaxProfileCpus, true); !st.ok()) return st;
    if (auto st = CheckFinite(at + ".mem_gb", p.mem_gb(), 0, kMaxMemoryGb, true); !st.ok()) return st;
    if (auto st = CheckFinite(at + ".throughput", p.throughput(), 0, kMaxThroughput, false); !st.ok()) return st;
    if (p.throughput() > 0 && p.throughput() < kMinProfileThroughput) {
      return Refuse(at + ".throughput", absl::StrCat(p.throughput()),
                    absl::StrCat("is neither 0 nor at least ", kMinProfileThroughput));
    }
    cpus.insert(p.cpus());
    mems.insert(p.mem_gb());
  }
  if (auto st = CheckCount(path, static_cast<int>(cpus.size()), kMaxProfileAxisValues, "distinct cpus values");
      !st.ok()) {
    return st;
  }
  return CheckCount(path, static_cast<int>(mems.size()), kMaxProfileAxisValues, "distinct mem_gb values");
}

}  // namespace

bool IsPosixEnvName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

bool IsNameToken(absl::string_view name) {
  if (name == "." || name == "..") return false;  // path components, should a name become one
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

absl::Status ValidateJobSpecFields(const v1::JobSpec& spec, absl::string_view path) {
  const auto field = [&](absl::string_view name) { return absl::StrCat(path, ".", name); };
  if (auto st = CheckText(field("name"), spec.name(), kMaxJobNameBytes, Chars::kPrintable, false); !st.ok()) return st;
  if (auto st = CheckText(field("model"), spec.model(), kMaxModelBytes, Chars::kPrintable, false); !st.ok()) return st;
  if (auto st = CheckText(field("tenant"), spec.tenant(), kMaxTenantBytes, Chars::kPrintable, false); !st.ok()) {
    return st;
  }
  if (spec.gpus() <= 0) return Refuse(field("gpus"), absl::StrCat(spec.gpus()), "is not a positive GPU count");
  if (auto st = CheckInt(field("gpus"), spec.gpus(), 1, kMaxJobGpus); !st.ok()) return st;
  if (auto st = CheckCommand(field("command"), spec.command()); !st.ok()) return st;
  if (auto st = CheckInt(field("iterations"), spec.iterations(), 0, kMaxIterations); !st.ok()) return st;
  if (spec.max_retries() < -1) {
    return Refuse(field("max_retries"), absl::StrCat(spec.max_retries()), "is below -1 (the default)");
  }
  if (auto st = CheckInt(field("max_retries"), spec.max_retries(), -1, kMaxRetries); !st.ok()) return st;
  if (spec.priority() < 0 || spec.priority() > kMaxPriorityClass) {
    return Refuse(field("priority"), absl::StrCat(spec.priority()),
                  absl::StrCat("is not a priority class (0 to ", kMaxPriorityClass, ")"));
  }
  if (auto st = CheckInt(field("time_limit_s"), spec.time_limit_s(), 0, kMaxTimeLimitS); !st.ok()) return st;
  if (auto st = CheckProfilePoints(field("profile_points"), spec.profile_points()); !st.ok()) return st;
  if (!spec.profile_gpu_type().empty()) {
    if (!IsGpuTypeName(spec.profile_gpu_type())) {
      return Refuse(field("profile_gpu_type"), QuoteForMessage(spec.profile_gpu_type()), kGpuTypeRule);
    }
    if (spec.profile_points_size() == 0) {
      return Refuse(field("profile_gpu_type"), QuoteForMessage(spec.profile_gpu_type()),
                    "names the type profile_points were measured on, and there are none");
    }
  }
  if (auto st = CheckDependencies(path, spec); !st.ok()) return st;
  if (!spec.array().empty()) {
    if (auto parsed = ParseArraySpec(spec.array()); !parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field(""), parsed.status().message()));
    }
  }
  return CheckEnv(field("env"), spec.env());
}

absl::Status ValidateNodeResources(const v1::NodeResources& resources, absl::string_view path) {
  if (auto st = CheckIds(absl::StrCat(path, ".gpu_ids"), resources.gpu_ids(), kMaxNodeGpuIds); !st.ok()) return st;
  if (auto st = CheckIds(absl::StrCat(path, ".cpu_ids"), resources.cpu_ids(), kMaxNodeCpuIds); !st.ok()) return st;
  if (!resources.gpu_type().empty() && !IsGpuTypeName(resources.gpu_type())) {
    return Refuse(absl::StrCat(path, ".gpu_type"), QuoteForMessage(resources.gpu_type()), kGpuTypeRule);
  }
  return CheckFinite(absl::StrCat(path, ".mem_gb"), resources.mem_gb(), 0, kMaxMemoryGb, /*positive_only=*/true);
}

absl::Status ValidateForeignUse(const v1::ForeignUse& foreign, absl::string_view path) {
  if (auto st = CheckInt(absl::StrCat(path, ".gpus"), foreign.gpus(), 0, kMaxNodeGpuIds); !st.ok()) return st;
  if (auto st = CheckInt(absl::StrCat(path, ".cpus"), foreign.cpus(), 0, kMaxNodeCpuIds); !st.ok()) return st;
  return CheckFinite(absl::StrCat(path, ".mem_gb"), foreign.mem_gb(), 0, kMaxMemoryGb, /*positive_only=*/false);
}

absl::Status ValidateSubmitJobRequest(const v1::SubmitJobRequest& request) {
  return ValidateJobSpecFields(request.spec(), "spec");
}

absl::Status ValidateCancelJobRequest(const v1::CancelJobRequest& request) {
  return CheckJobId("job_id", request.job_id());
}

absl::Status ValidateGetJobRequest(const v1::GetJobRequest& request) { return CheckJobId("job_id", request.job_id()); }

absl::Status ValidateListJobsRequest(const v1::ListJobsRequest& request) {
  if (auto st = CheckCount("states", request.states_size(), kMaxListStates, "states"); !st.ok()) return st;
  for (int i = 0; i < request.states_size(); ++i) {
    if (!v1::JobState_IsValid(request.states(i))) {
      return Refuse(absl::StrCat("states[", i, "]"), absl::StrCat(request.states(i)),
                    absl::StrCat("is not a job state (", v1::JobState_MIN, " to ", v1::JobState_MAX, ")"));
    }
  }
  if (auto st = CheckInt("page_size", request.page_size(), 0, kMaxListPageSize); !st.ok()) return st;
  // A token is the last job id of the page before.
  if (!request.page_token().empty()) {
    if (auto st = CheckJobId("page_token", request.page_token()); !st.ok()) return st;
  }
  if (auto st = CheckText("owner", request.owner(), kMaxOwnerFilterBytes, Chars::kPrintable, false); !st.ok()) {
    return st;
  }
  if (auto st = CheckText("tenant", request.tenant(), kMaxTenantBytes, Chars::kPrintable, false); !st.ok()) {
    return st;
  }
  if (!request.array_id().empty()) {
    if (auto st = CheckJobId("array_id", request.array_id()); !st.ok()) return st;
  }
  return CheckInt("submitted_since_unix_ms", request.submitted_since_unix_ms(), 0,
                  std::numeric_limits<int64_t>::max());
}

absl::Status ValidateListNodesRequest(const v1::ListNodesRequest&) { return absl::OkStatus(); }

absl::Status ValidateClusterStateRequest(const v1::ClusterStateRequest&) { return absl::OkStatus(); }

absl::Status ValidateDrainNodeRequest(const v1::DrainNodeRequest& request) {
  if (auto st = CheckNodeName("name", request.name()); !st.ok()) return st;
  return CheckText("reason", request.reason(), kMaxDrainReasonBytes, Chars::kPrintable, false);
}

absl::Status ValidateJobLogsRequest(const v1::JobLogsRequest& request) {
  if (auto st = CheckJobId("job_id", request.job_id()); !st.ok()) return st;
  if (request.epoch() < 0) return Refuse("epoch", absl::StrCat(request.epoch()), "is negative");
  if (request.rank() < 0 || request.rank() >= kMaxJobGpus) {
    return Refuse("rank", absl::StrCat(request.rank()), absl::StrCat("is not a rank (0 to ", kMaxJobGpus - 1, ")"));
  }
  if (request.offset() < 0) return Refuse("offset", absl::StrCat(request.offset()), "is negative");
  if (request.max_bytes() < 0 || request.max_bytes() > kMaxLogChunkBytes) {
    return Refuse("max_bytes", absl::StrCat(request.max_bytes()),
                  absl::StrCat("is not in 0 to ", kMaxLogChunkBytes));
  }
  return absl::OkStatus();
}

absl::Status ValidateLogChunk(const v1::LogChunk& chunk) {
  if (auto st = CheckNodeName("name", chunk.name()); !st.ok()) return st;
  if (chunk.offset() < 0) return Refuse("offset", absl::StrCat(chunk.offset()), "is negative");
  if (chunk.size() < 0) return Refuse("size", absl::StrCat(chunk.size()), "is negative");
  if (chunk.data().size() > static_cast<size_t>(kMaxLogChunkBytes)) {
    return Refuse("data", absl::StrCat("(", chunk.data().size(), " bytes)"),
                  absl::StrCat("is longer than ", kMaxLogChunkBytes, " bytes"));
  }
  return CheckText("error", chunk.error(), kMaxReasonBytes, Chars::kPrintable, false);
}

absl::Status ValidateJobActionRequest(const v1::JobActionRequest& request) {
  return CheckJobId("job_id", request.job_id());
}

absl::Status ValidateUpdateJobRequest(const v1::UpdateJobRequest& request) {
  if (auto st = CheckJobId("job_id", request.job_id()); !st.ok()) return st;
  if (!request.has_priority()) return Refuse("priority", "(not set)", "is the only field UpdateJob changes: set it");
  if (request.priority() < 0 || request.priority() > kMaxPriorityClass) {
    return Refuse("priority", absl::StrCat(request.priority()),
                  absl::StrCat("is not a priority class (0 to ", kMaxPriorityClass, ")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateRegisterNodeRequest(const v1::RegisterNodeRequest& request) {
  if (auto st = CheckNodeName("name", request.name()); !st.ok()) return st;
  if (auto st = CheckText("address", request.address(), kMaxNodeAddressBytes, Chars::kAddress, false); !st.ok()) {
    return st;
  }
  if (auto st = ValidateNodeResources(request.resources(), "resources"); !st.ok()) return st;
  if (auto st = CheckText("cgroups", request.cgroups(), kMaxReasonBytes, Chars::kPrintable, false); !st.ok()) {
    return st;
  }
  if (auto st = ValidateForeignUse(request.foreign(), "foreign"); !st.ok()) return st;
  return CheckRunning("running", request.running());
}

absl::Status ValidateHeartbeatRequest(const v1::HeartbeatRequest& request) {
  if (auto st = CheckNodeName("name", request.name()); !st.ok()) return st;
  if (auto st = CheckRunning("running", request.running()); !st.ok()) return st;
  if (auto st = ValidateForeignUse(request.foreign(), "foreign"); !st.ok()) return st;
  return CheckExits("exits", request.exits());
}

absl::Status ValidateAgentHello(const v1::AgentHello& hello) {
  if (auto st = CheckLeaseKey(hello.job_id(), hello.epoch()); !st.ok()) return st;
  return CheckInt("rank", hello.rank(), 0, kMaxRank);
}

absl::Status ValidateProgressReport(const v1::ProgressReport& report) {
  if (auto st = CheckLeaseKey(report.job_id(), report.epoch()); !st.ok()) return st;
  if (auto st = CheckInt("iterations_done", report.iterations_done(), 0, kMaxIterations); !st.ok()) return st;
  if (auto st = CheckFinite("throughput", report.throughput(), 0, kMaxThroughput, false); !st.ok()) return st;
  if (auto st = CheckInt("rank", report.rank(), 0, kMaxRank); !st.ok()) return st;
  if (auto st = CheckInt("applied_revision", report.applied_revision(), 0, INT64_MAX); !st.ok()) return st;
  return CheckInt("stop_at_iteration", report.stop_at_iteration(), 0, kMaxIterations);
}

absl::Status ValidateCheckpointDone(const v1::CheckpointDone& done) {
  if (auto st = CheckLeaseKey(done.job_id(), done.epoch()); !st.ok()) return st;
  if (auto st = CheckInt("iteration", done.iteration(), 0, kMaxIterations); !st.ok()) return st;
  return CheckText("path", done.path(), kMaxPathBytes, Chars::kPrintable, false);
}

absl::Status ValidateMeasuredProfile(const v1::MeasuredProfile& profile) {
  if (auto st = CheckLeaseKey(profile.job_id(), profile.epoch()); !st.ok()) return st;
  if (auto st = CheckProfilePoints("points", profile.points()); !st.ok()) return st;
  return CheckFinite("seconds", profile.seconds(), 0, HUGE_VAL, false);
}

}  // namespace synergy::service
