#include "slurm/slurm_json.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "service/escape.h"
#include "service/request_limits.h"
#include "service/request_validation.h"

namespace synergy::slurm {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;
using service::QuoteForMessage;

// Names and states Slurm writes are short; anything longer is not Slurm's.
constexpr size_t kMaxNameBytes = 512;
constexpr size_t kMaxListItems = 1024;

absl::Status Refuse(const std::string& path, const std::string& value, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", value, ": ", why));
}

std::string Describe(const Value& v) {
  switch (v.kind_case()) {
    case Value::kStringValue: return QuoteForMessage(v.string_value());
    case Value::kNumberValue: return absl::StrCat(v.number_value());
    case Value::kBoolValue: return v.bool_value() ? "true" : "false";
    case Value::kNullValue: return "null";
    case Value::kListValue: return "(a list)";
    case Value::kStructValue: return "(a map)";
    default: return "(nothing)";
  }
}

absl::StatusOr<Struct> ParseDocument(std::string_view text, const char* what) {
  if (text.size() > kMaxJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", text.size(), " bytes, more than ", kMaxJsonBytes));
  }
  Struct doc;
  const auto st = google::protobuf::util::JsonStringToMessage(std::string(text), &doc);
  if (!st.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not JSON: ", QuoteForMessage(std::string(st.message()))));
  }
  return doc;
}

// The field `key` of `object`, or null where it is absent.
const Value* Field(const Struct& object, const char* key) {
  auto it = object.fields().find(key);
  return it == object.fields().end() ? nullptr : &it->second;
}

absl::Status ReadString(const Struct& object, const char* key, const std::string& path, std::string& out,
                        bool required = true) {
  const Value* v = Field(object, key);
  if (v == nullptr || v->kind_case() == Value::kNullValue) {
    if (required) return absl::InvalidArgumentError(absl::StrCat(path, ".", key, ": missing"));
    return absl::OkStatus();
  }
  if (v->kind_case() != Value::kStringValue) return Refuse(absl::StrCat(path, ".", key), Describe(*v), "is not text");
  if (v->string_value().size() > kMaxNameBytes) {
    return Refuse(absl::StrCat(path, ".", key), QuoteForMessage(v->string_value()),
                  absl::StrCat("is longer than ", kMaxNameBytes, " bytes"));
  }
  out = v->string_value();
  return absl::OkStatus();
}

// An integer in [lo, hi]: JSON numbers are doubles, so integers beyond
// 2^53 are not exact and are refused with the rest.
absl::Status ReadInt(const Struct& object, const char* key, const std::string& path, int64_t lo, int64_t hi,
                     int64_t& out) {
  const Value* v = Field(object, key);
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat(path, ".", key, ": missing"));
  const std::string where = absl::StrCat(path, ".", key);
  if (v->kind_case() != Value::kNumberValue) return Refuse(where, Describe(*v), "is not a number");
  const double d = v->number_value();
  if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
    return Refuse(where, Describe(*v), absl::StrCat("is not an integer from ", lo, " to ", hi));
  }
  out = static_cast<int64_t>(d);
  return absl::OkStatus();
}

absl::Status ReadStringList(const Struct& object, const char* key, const std::string& path,
                            std::vector<std::string>& out) {
  const Value* v = Field(object, key);
  if (v == nullptr || v->kind_case() == Value::kNullValue) return absl::OkStatus();
  const std::string where = absl::StrCat(path, ".", key);
  if (v->kind_case() != Value::kListValue) return Refuse(where, Describe(*v), "is not a list");
  const ListValue& list = v->list_value();
  if (static_cast<size_t>(list.values_size()) > kMaxListItems) {
    return Refuse(where, absl::StrCat(list.values_size(), " items"), absl::StrCat("more than ", kMaxListItems));
  }
  for (int i = 0; i < list.values_size(); ++i) {
    const Value& item = list.values(i);
    if (item.kind_case() != Value::kStringValue || item.string_value().size() > kMaxNameBytes) {
      return Refuse(absl::StrCat(where, "[", i, "]"), Describe(item), "is not a short text");
    }
    out.push_back(item.string_value());
  }
  return absl::OkStatus();
}

// The objects of the list `key` of the document, at most `max`.
absl::StatusOr<std::vector<const Struct*>> Objects(const Struct& doc, const char* what, const char* key,
                                                   size_t max) {
  const Value* v = Field(doc, key);
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat(what, ": ", key, ": missing"));
  if (v->kind_case() != Value::kListValue) return Refuse(absl::StrCat(what, ": ", key), Describe(*v), "is not a list");
  const ListValue& list = v->list_value();
  if (static_cast<size_t>(list.values_size()) > max) {
    return Refuse(absl::StrCat(what, ": ", key), absl::StrCat(list.values_size(), " entries"),
                  absl::StrCat("more than ", max));
  }
  std::vector<const Struct*> out;
  for (int i = 0; i < list.values_size(); ++i) {
    if (list.values(i).kind_case() != Value::kStructValue) {
      return Refuse(absl::StrCat(what, ": ", key, "[", i, "]"), Describe(list.values(i)), "is not a map");
    }
    out.push_back(&list.values(i).struct_value());
  }
  return out;
}

// "gpu:2", "gpu:a100:2(S:0-1)", "gpu:a100:2,gpu:v100:1,mps:100": the GPUs
// summed over the gpu entries, and their type where one type is named.
absl::Status ReadGres(const std::string& gres, const std::string& path, SlurmNode& node) {
  bool several_types = false;
  for (absl::string_view entry : absl::StrSplit(gres, ',', absl::SkipEmpty())) {
    entry = entry.substr(0, entry.find('('));
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    if (parts.empty() || parts[0] != "gpu") continue;
    absl::string_view count = parts.size() >= 2 ? parts.back() : "1";
    absl::string_view type = parts.size() == 3 ? parts[1] : "";
    int n = 0;
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (parts.size() > 3 || ec != std::errc() || end != count.data() + count.size() || n < 0 || n > 1024 ||
        node.gpus + n > 1024) {
      return Refuse(path, QuoteForMessage(gres), "is not a gres list Slurm writes (gpu:[TYPE:]COUNT, ...)");
    }
    node.gpus += n;
    if (!type.empty()) {
      if (!node.gpu_type.empty() && node.gpu_type != type) several_types = true;
      node.gpu_type = std::string(type);
    }
  }
  if (several_types) node.gpu_type.clear();
  return absl::OkStatus();
}

// Whether `object` (a node) lists `partition`, read leniently: a node
// that is not ours is skipped, whatever else it holds.
bool InPartition(const Struct& object, std::string_view partition) {
  const Value* v = Field(object, "partitions");
  if (v == nullptr || v->kind_case() != Value::kListValue) return false;
  for (const Value& p : v->list_value().values()) {
    if (p.kind_case() == Value::kStringValue && p.string_value() == partition) return true;
  }
  return false;
}

// Whether `object` (a job) is named as a lease's, read leniently: other
// users' jobs are skipped, whatever else they hold.
bool NamedAsALease(const Struct& object) {
  const Value* v = Field(object, "name");
  return v != nullptr && v->kind_case() == Value::kStringValue && LeaseOfSlurmJobName(v->string_value()).has_value();
}

// Whether Slurm would run a job on `node` now, counting its drain flags
// or not.
bool Usable(const SlurmNode& node, bool count_drain) {
  static const char* const kUp[] = {"idle", "mixed", "allocated", "completing"};
  bool up = false;
  for (const char* s : kUp) up |= node.state == s;
  if (!up) return false;
  static const char* const kDrain[] = {"DRAIN", "DRAINED", "DRAINING"};
  static const char* const kKeepOff[] = {
      "NOT_RESPONDING", "MAINTENANCE",   "POWERED_DOWN",     "POWERING_DOWN", "POWERING_UP",
      "POWER_DOWN",     "POWER_UP",      "REBOOT_REQUESTED", "REBOOT_ISSUED", "FAIL",
      "INVALID_REG"};
  for (const std::string& flag : node.state_flags) {
    for (const char* off : kKeepOff) {
      if (flag == off) return false;
    }
    for (const char* off : kDrain) {
      if (count_drain && flag == off) return false;
    }
  }
  return true;
}

// Slurm 22.05's sinfo and squeue exit 0 with an "errors" list (and empty
// lists of nodes and jobs) when slurmctld cannot be reached: that is Slurm
// unreadable, never an empty cluster. UNAVAILABLE with the first error.
absl::Status SlurmErrors(const Struct& doc, const char* what) {
  const Value* errors = Field(doc, "errors");
  if (errors == nullptr || errors->kind_case() != Value::kListValue || errors->list_value().values_size() == 0) {
    return absl::OkStatus();
  }
  std::string first = "(no text)";
  const Value& e = errors->list_value().values(0);
  if (e.kind_case() == Value::kStructValue) {
    for (const char* key : {"error", "description", "message"}) {
      const Value* text = Field(e.struct_value(), key);
      if (text != nullptr && text->kind_case() == Value::kStringValue && !text->string_value().empty()) {
        first = QuoteForMessage(text->string_value().substr(0, 200));
        break;
      }
    }
  } else if (e.kind_case() == Value::kStringValue) {
    first = QuoteForMessage(e.string_value().substr(0, 200));
  }
  return absl::UnavailableError(absl::StrCat(what, ": Slurm reports ", errors->list_value().values_size(),
                                             " error(s), the first ", first));
}

JobPhase PhaseOf(const std::string& state) {
  if (state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" || state == "REQUEUE_FED") {
    return JobPhase::kPending;
  }
  if (state == "RUNNING" || state == "CONFIGURING" || state == "COMPLETING" || state == "SUSPENDED" ||
      state == "STOPPED" || state == "STAGE_OUT" || state == "RESIZING" || state == "SIGNALING") {
    return JobPhase::kRunning;
  }
  return JobPhase::kEnded;
}

}  // namespace

absl::StatusOr<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text, std::string_view partition) {
  absl::StatusOr<Struct> doc = ParseDocument(text, "sinfo --json");
  if (!doc.ok()) return doc.status();
  if (absl::Status st = SlurmErrors(*doc, "sinfo --json"); !st.ok()) return st;
  absl::StatusOr<std::vector<const Struct*>> objects = Objects(*doc, "sinfo --json", "nodes", kMaxNodes);
  if (!objects.ok()) return objects.status();
  std::vector<SlurmNode> nodes;
  for (size_t i = 0; i < objects->size(); ++i) {
    const Struct& n = *(*objects)[i];
    const std::string path = absl::StrCat("sinfo --json: nodes[", i, "]");
    if (!partition.empty() && !InPartition(n, partition)) continue;  // not ours: not read
    SlurmNode node;
    int64_t cpus = 0, memory = 0;
    std::string gres;
    absl::Status st;
    st.Update(ReadString(n, "name", path, node.name));
    st.Update(ReadString(n, "state", path, node.state));
    st.Update(ReadString(n, "address", path, node.address, /*required=*/false));
    st.Update(ReadStringList(n, "state_flags", path, node.state_flags));
    st.Update(ReadInt(n, "cpus", path, 0, 65535, cpus));
    st.Update(ReadInt(n, "real_memory", path, 0, int64_t{1} << 40, memory));
    st.Update(ReadString(n, "gres", path, gres, /*required=*/false));
    st.Update(ReadStringList(n, "partitions", path, node.partitions));
    if (st.ok()) st.Update(ReadGres(gres, path + ".gres", node));
    if (!st.ok()) return st;
    if (node.name.empty()) return absl::InvalidArgumentError(path + ".name: empty");
    node.cpus = static_cast<int>(cpus);
    node.memory_mb = memory;
    node.usable = Usable(node, /*count_drain=*/true);
    node.drained = !node.usable && Usable(node, /*count_drain=*/false);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

absl::StatusOr<std::vector<SlurmJob>> ParseSqueueJson(std::string_view text, std::string_view partition) {
  absl::StatusOr<Struct> doc = ParseDocument(text, "squeue --json");
  if (!doc.ok()) return doc.status();
  if (absl::Status st = SlurmErrors(*doc, "squeue --json"); !st.ok()) return st;
  absl::StatusOr<std::vector<const Struct*>> objects = Objects(*doc, "squeue --json", "jobs", kMaxJobs);
  if (!objects.ok()) return objects.status();
  std::vector<SlurmJob> jobs;
  for (size_t i = 0; i < objects->size(); ++i) {
    const Struct& j = *(*objects)[i];
    const std::string path = absl::StrCat("squeue --json: jobs[", i, "]");
    if (!NamedAsALease(j)) continue;  // not ours: not read
    if (!partition.empty()) {
      const Value* p = Field(j, "partition");
      if (p == nullptr || p->kind_case() != Value::kStringValue || p->string_value() != partition) continue;
    }
    SlurmJob job;
    int64_t status = 0;
    absl::Status st;
    st.Update(ReadInt(j, "job_id", path, 1, int64_t{1} << 53, job.id));
    st.Update(ReadInt(j, "user_id", path, 0, (int64_t{1} << 32) - 1, job.user_id));
    st.Update(ReadString(j, "name", path, job.name));
    st.Update(ReadString(j, "job_state", path, job.state));
    st.Update(ReadInt(j, "exit_code", path, 0, 0xffff, status));
    st.Update(ReadString(j, "nodes", path, job.nodes, /*required=*/false));
    st.Update(ReadString(j, "required_nodes", path, job.required_nodes, /*required=*/false));
    st.Update(ReadString(j, "partition", path, job.partition, /*required=*/false));
    if (const Value* end = Field(j, "end_time"); end != nullptr && end->kind_case() != Value::kNullValue) {
      st.Update(ReadInt(j, "end_time", path, 0, int64_t{1} << 40, job.end_unix_s));
    }
    if (!st.ok()) return st;
    job.phase = PhaseOf(job.state);
    // A wait status: the signal in the low 7 bits, else the code above them
    // (0x7f there: stopped, by the signal above; not an end).
    const int low = static_cast<int>(status & 0x7f);
    job.signal = low == 0x7f ? static_cast<int>((status >> 8) & 0xff) : low;
    job.exit_code = low == 0 ? static_cast<int>((status >> 8) & 0xff) : 0;
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string SlurmJobName(std::string_view job_id, int64_t epoch) {
  return absl::StrCat("synergy-", std::string(job_id), "-", epoch);
}

std::optional<LeaseKey> LeaseOfSlurmJobName(std::string_view name) {
  constexpr std::string_view kPrefix = "synergy-";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash < kPrefix.size() + 1 || dash + 1 >= name.size()) return std::nullopt;
  const std::string_view epoch_text = name.substr(dash + 1);
  // One spelling a lease: no leading zeros.
  if (epoch_text.size() > 1 && epoch_text[0] == '0') return std::nullopt;
  int64_t epoch = 0;
  auto [end, ec] = std::from_chars(epoch_text.data(), epoch_text.data() + epoch_text.size(), epoch);
  if (ec != std::errc() || end != epoch_text.data() + epoch_text.size() || epoch < 0) return std::nullopt;
  const std::string_view job_id = name.substr(kPrefix.size(), dash - kPrefix.size());
  // Only a job id synergyd could have given: a lease-like name of anything
  // else (its owner may rename a Slurm job) is no lease.
  if (job_id.size() > service::kMaxJobIdBytes || !service::IsNameToken(absl::string_view(job_id.data(), job_id.size()))) {
    return std::nullopt;
  }
  return LeaseKey{std::string(job_id), epoch};
}

}  // namespace synergy::slurm
