#include "service/job_spec.h"

#include <cstdint>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "service/durations.h"
#include "service/job_arrays.h"
#include "service/request_limits.h"
#include "service/request_validation.h"
#include "synergy/config_loader.h"
#include "synergy/yaml_reader.h"

namespace synergy::service {
namespace {

// The YAML reader checks types, what fits the message's fields and the
// sizes of request_limits.h (before copying: aliases can repeat a long
// scalar); ValidateJobSpec then judges the values, as for every SubmitJob.
constexpr IntRange kInt32{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
constexpr IntRange kInt64{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};

// command: a list of strings, or one string split on spaces.
absl::Status ReadCommand(const YamlValue& value, v1::JobSpec& spec) {
  if (value.IsScalar()) {
    absl::StatusOr<std::string> line = value.String(kMaxCommandBytes);
    if (!line.ok()) return line.status();
    for (absl::string_view part : absl::StrSplit(*line, ' ', absl::SkipEmpty())) {
      spec.add_command(std::string(part));
    }
    return absl::OkStatus();
  }
  if (!value.IsSequence()) return value.Error("is not a list or a string");
  absl::StatusOr<std::vector<std::string>> argv = value.StringList(0, kMaxCommandArgs, kMaxCommandBytes);
  if (!argv.ok()) return argv.status();
  for (std::string& arg : *argv) spec.add_command(std::move(arg));
  return absl::OkStatus();
}

// profile_points: [{cpus: 2, mem_gb: 8, throughput: 41.5}, ...]; the
// bounds are ValidateJobSpecFields', as for a SubmitJob that sent them.
absl::Status ReadProfilePoints(const YamlValue& value, v1::JobSpec& spec) {
  absl::StatusOr<std::vector<YamlValue>> items = value.List(1, kMaxProfilePoints);
  if (!items.ok()) return items.status();
  for (const YamlValue& item : *items) {
    absl::StatusOr<YamlMap> m = item.Map({"cpus", "mem_gb", "throughput"});
    if (!m.ok()) return m.status();
    // Every key is required: an absent one fails its read.
    absl::StatusOr<double> cpus = m->Get("cpus").Double(DoubleRange::Positive(kMaxProfileCpus));
    if (!cpus.ok()) return cpus.status();
    absl::StatusOr<double> mem_gb = m->Get("mem_gb").Double(DoubleRange::Positive(kMaxMemoryGb));
    if (!mem_gb.ok()) return mem_gb.status();
    absl::StatusOr<double> throughput = m->Get("throughput").Double(DoubleRange::NonNegative(kMaxThroughput));
    if (!throughput.ok()) return throughput.status();
    v1::ProfilePoint* p = spec.add_profile_points();
    p->set_cpus(*cpus);
    p->set_mem_gb(*mem_gb);
    p->set_throughput(*throughput);
  }
  return absl::OkStatus();
}

// time_limit: 90m, 2h, 7d (at most a year).
absl::Status ReadTimeLimit(const YamlMap& m, v1::JobSpec& spec) {
  if (!m.Has("time_limit")) return absl::OkStatus();
  std::string text;
  if (auto st = m.Read("time_limit", text, 32); !st.ok()) return st;
  const std::optional<int64_t> seconds = ParseDurationSeconds(text, kMaxTimeLimitS);
  if (!seconds) return m.Get("time_limit").Error("is not a duration from 1s to 365d (e.g. 90m, 2h, 7d)");
  spec.set_time_limit_s(*seconds);
  return absl::OkStatus();
}

// after_ok: [j-000012, j-000013] (or one id as a string); array: 0-99%10
// (a number alone is one index).
absl::Status ReadDependenciesAndArray(const YamlMap& m, v1::JobSpec& spec) {
  for (const char* key : {"after_ok", "after_any"}) {
    if (!m.Has(key)) continue;
    const YamlValue& value = m.Get(key);
    std::vector<std::string> ids;
    if (value.IsScalar()) {
      absl::StatusOr<std::string> one = value.String(kMaxJobIdBytes);
      if (!one.ok()) return one.status();
      ids.push_back(*one);
    } else {
      absl::StatusOr<std::vector<std::string>> list = value.StringList(0, kMaxDependencies, kMaxDependencies * kMaxJobIdBytes);
      if (!list.ok()) return list.status();
      ids = std::move(*list);
    }
    auto* field = std::string(key) == "after_ok" ? spec.mutable_after_ok() : spec.mutable_after_any();
    for (std::string& id : ids) field->Add(CanonicalJobName(id));
  }
  std::string array;
  if (auto st = m.Read("array", array, kMaxArraySpecBytes); !st.ok()) return st;
  spec.set_array(array);
  return absl::OkStatus();
}

absl::Status ReadJobFields(const YamlMap& m, v1::JobSpec& spec) {
  std::string name, model, tenant, profile_gpu_type;
  int gpus = 0, max_retries = -1, priority = 0;
  int64_t iterations = 0;
  bool uses_agent = false, profile = false;
  absl::Status st;
  st.Update(m.Read("name", name, kMaxJobNameBytes));
  st.Update(m.Read("model", model, kMaxModelBytes));
  st.Update(m.Read("tenant", tenant, kMaxTenantBytes));
  st.Update(m.Read("profile_gpu_type", profile_gpu_type, kMaxGpuTypeBytes));
  st.Update(m.Read("gpus", gpus, kInt32));
  st.Update(m.Read("max_retries", max_retries, kInt32));
  st.Update(m.Read("priority", priority, kInt32));
  st.Update(m.Read("iterations", iterations, kInt64));
  st.Update(m.Read("uses_agent", uses_agent));
  st.Update(m.Read("profile", profile));
  if (m.Has("command")) st.Update(ReadCommand(m.Get("command"), spec));
  if (m.Has("profile_points")) st.Update(ReadProfilePoints(m.Get("profile_points"), spec));
  st.Update(ReadTimeLimit(m, spec));
  st.Update(ReadDependenciesAndArray(m, spec));
  if (m.Has("env")) {
    absl::StatusOr<std::map<std::string, std::string>> env = m.Get("env").StringMap(kMaxEnvVars, kMaxEnvBytes);
    if (env.ok()) spec.mutable_env()->insert(env->begin(), env->end());
    st.Update(env.status());
  }
  if (!st.ok()) return st;
  spec.set_name(name);
  spec.set_model(model);
  spec.set_tenant(tenant);
  spec.set_gpus(gpus);
  spec.set_max_retries(max_retries);
  spec.set_priority(priority);
  spec.set_iterations(iterations);
  spec.set_uses_agent(uses_agent);
  spec.set_profile(profile);
  spec.set_profile_gpu_type(profile_gpu_type);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::JobSpec> ParseJobSpecYaml(const std::string& text, const std::string& file) {
  absl::StatusOr<YamlValue> doc = ParseYaml(text, file);
  if (!doc.ok()) return doc.status();
  absl::StatusOr<YamlMap> m =
      doc->Map(std::vector<absl::string_view>(std::begin(kJobSpecFields), std::end(kJobSpecFields)));
  if (!m.ok()) return m.status();
  v1::JobSpec spec;
  if (absl::Status st = ReadJobFields(*m, spec); !st.ok()) return st;
  if (auto st = ValidateJobSpec(spec, JobLimits{}); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", st.message()));
  }
  return spec;
}

absl::Status ValidateJobSpec(const v1::JobSpec& spec, const JobLimits& limits) {
  // Bounds first: nothing below reads a field that has not passed them
  // (an unknown model is echoed back, and must be short and printable).
  if (auto st = ValidateJobSpecFields(spec, "spec"); !st.ok()) return st;
  if (limits.max_gpus > 0 && spec.gpus() > limits.max_gpus) {
    return absl::InvalidArgumentError(absl::StrCat("spec.gpus: ", spec.gpus(), " is more than the ",
                                                   limits.max_gpus_of.empty() ? "cluster's" : limits.max_gpus_of,
                                                   " ", limits.max_gpus, " GPUs"));
  }
  if (spec.uses_agent() && spec.iterations() == 0) {
    return absl::InvalidArgumentError("spec.iterations: required (> 0) for a job that uses the agent");
  }
  if (spec.profile() && !spec.uses_agent()) {
    return absl::InvalidArgumentError("spec.profile: needs uses_agent (only the agent can measure)");
  }
  if (spec.profile_points_size() > 0 && !spec.uses_agent()) {
    return absl::InvalidArgumentError(
        "spec.profile_points: needs uses_agent (a plain process keeps its proportional share)");
  }
  if (spec.profile_points_size() > 0 && spec.profile()) {
    return absl::InvalidArgumentError(
        "spec.profile_points: given with profile: true (measure it again, or use these points: not both)");
  }
  if (limits.zoo != nullptr && !spec.model().empty() && limits.zoo->Find(spec.model()) < 0) {
    std::vector<std::string> names;
    for (const ModelSpec& m : limits.zoo->models()) names.push_back(m.name);
    return absl::InvalidArgumentError(absl::StrCat("spec.model: unknown model ", QuoteForMessage(spec.model()),
                                                   " (known: ", absl::StrJoin(names, ", "), ")"));
  }
  return absl::OkStatus();
}

}  // namespace synergy::service
