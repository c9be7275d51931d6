#include "slurm/slurm_json.h"

#include <charconv>
#include <cmath>
#include <map>

#include "absl/strings/ascii.h"
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

// Slurm 23.02 and later write many numbers as {"set": true, "infinite":
// false, "number": N}: the number, or nullptr where it is not set or
// infinite (then as if absent). A plain number is itself.
const Value* NumberOf(const Value* v) {
  if (v == nullptr || v->kind_case() != Value::kStructValue) return v;
  const Struct& n = v->struct_value();
  const Value* set = Field(n, "set");
  const Value* infinite = Field(n, "infinite");
  const Value* number = Field(n, "number");
  if (set == nullptr || number == nullptr || set->kind_case() != Value::kBoolValue) return v;  // not that form
  if (!set->bool_value() || (infinite != nullptr && infinite->kind_case() == Value::kBoolValue && infinite->bool_value())) {
    return nullptr;
  }
  return number;
}

// An integer in [lo, hi], plain or in Slurm's {set, infinite, number}
// form: JSON numbers are doubles, so integers beyond 2^53 are not exact
// and are refused with the rest. Not set (or infinite) counts as missing.
absl::Status ReadInt(const Struct& object, const char* key, const std::string& path, int64_t lo, int64_t hi,
                     int64_t& out) {
  const Value* v = NumberOf(Field(object, key));
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

// As ReadInt, where an absent, null or unset field leaves `out` as it is.
absl::Status ReadOptionalInt(const Struct& object, const char* key, const std::string& path, int64_t lo, int64_t hi,
                             int64_t& out) {
  const Value* v = NumberOf(Field(object, key));
  if (v == nullptr || v->kind_case() == Value::kNullValue) return absl::OkStatus();
  return ReadInt(object, key, path, lo, hi, out);
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
// summed over the gpu entries, and their type where one type is named
// ("" when none or several). Entries may carry a TRES prefix ("gres:",
// "gres/") as a job's tres_per_node does.
struct GresGpus {
  int count = 0;
  std::string type;
};
absl::StatusOr<GresGpus> ReadGres(const std::string& gres, const std::string& path) {
  GresGpus out;
  bool several_types = false;
  for (absl::string_view entry : absl::StrSplit(gres, ',', absl::SkipEmpty())) {
    for (absl::string_view prefix : {"gres:", "gres/"}) {
      if (entry.substr(0, prefix.size()) == prefix) entry.remove_prefix(prefix.size());
    }
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    if (parts.empty() || parts[0] != "gpu") continue;
    // The count's "(S:0-1)" or "(IDX:0,2)" (itself with colons), not the
    // type's "(null)".
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "(null)" || parts[i].empty() || parts[i][0] == '(') continue;
      if (const size_t open = parts[i].find('('); open != absl::string_view::npos) {
        parts[i] = parts[i].substr(0, open);
        parts.resize(i + 1);
        break;
      }
    }
    absl::string_view count = parts.size() >= 2 ? parts.back() : "1";
    absl::string_view type = parts.size() == 3 ? parts[1] : "";
    int n = 0;
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (parts.size() > 3 || ec != std::errc() || end != count.data() + count.size() || n < 0 || n > 1024 ||
        out.count + n > 1024) {
      return Refuse(path, QuoteForMessage(gres), "is not a gres list Slurm writes (gpu:[TYPE:]COUNT, ...)");
    }
    out.count += n;
    // Slurm writes "(null)" for an untyped GPU in gres_used.
    if (!type.empty() && type != "(null)") {
      if (!out.type.empty() && out.type != type) several_types = true;
      out.type = std::string(type);
    }
  }
  if (several_types) out.type.clear();
  return out;
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

// A state as 22.05 writes it (one word; a node's flags in state_flags) or
// as later releases do (a list: the base state first, then its flags).
absl::Status ReadStateWords(const Struct& object, const char* key, const std::string& path,
                            std::vector<std::string>& words) {
  const Value* v = Field(object, key);
  if (v != nullptr && v->kind_case() == Value::kListValue) {
    if (absl::Status st = ReadStringList(object, key, path, words); !st.ok()) return st;
    if (words.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ".", key, ": an empty list"));
    return absl::OkStatus();
  }
  std::string word;
  if (absl::Status st = ReadString(object, key, path, word); !st.ok()) return st;
  words = {word};
  return absl::OkStatus();
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

// A job's phase from its state words: 22.05 writes a flag (COMPLETING,
// REQUEUED, ...) in place of the base state; later releases write the base
// state and then the flags, which tell the same.
JobPhase PhaseOfWords(const std::vector<std::string>& words) {
  for (size_t i = 1; i < words.size(); ++i) {
    const JobPhase flag = PhaseOf(words[i]);
    if (flag != JobPhase::kEnded) return flag;
  }
  return PhaseOf(words[0]);
}

// How a job ended: 22.05 writes the wait status as a number, 23.02 the
// same as {set, infinite, number}, 23.11 and later {status: [...],
// return_code: {...}, signal: {id: {...}, name}}.
absl::Status ReadExit(const Struct& j, const std::string& path, SlurmJob& job) {
  const Value* v = Field(j, "exit_code");
  if (v != nullptr && v->kind_case() == Value::kStructValue && Field(v->struct_value(), "return_code") != nullptr) {
    const Struct& e = v->struct_value();
    const std::string where = path + ".exit_code";
    int64_t code = 0, signal = 0;
    absl::Status st = ReadOptionalInt(e, "return_code", where, 0, 255, code);
    if (const Value* sig = Field(e, "signal"); sig != nullptr && sig->kind_case() == Value::kStructValue) {
      st.Update(ReadOptionalInt(sig->struct_value(), "id", where + ".signal", 0, 127, signal));
    } else if (sig != nullptr && sig->kind_case() != Value::kNullValue) {
      st.Update(Refuse(where + ".signal", Describe(*sig), "is not a map"));
    }
    if (!st.ok()) return st;
    job.signal = static_cast<int>(signal);
    job.exit_code = signal != 0 ? 0 : static_cast<int>(code);
    return absl::OkStatus();
  }
  int64_t status = 0;
  if (absl::Status st = ReadOptionalInt(j, "exit_code", path, 0, 0xffff, status); !st.ok()) return st;
  // A wait status: the signal in the low 7 bits, else the code above them
  // (0x7f there: stopped, by the signal above; not an end).
  const int low = static_cast<int>(status & 0x7f);
  job.signal = low == 0x7f ? static_cast<int>((status >> 8) & 0xff) : low;
  job.exit_code = low == 0 ? static_cast<int>((status >> 8) & 0xff) : 0;
  return absl::OkStatus();
}

// The map `key` of `object` (nullptr where absent or null); an error where
// it is something else.
absl::StatusOr<const Struct*> SubMap(const Struct& object, const char* key, const std::string& path) {
  const Value* v = Field(object, key);
  if (v == nullptr || v->kind_case() == Value::kNullValue) return nullptr;
  if (v->kind_case() != Value::kStructValue) return Refuse(absl::StrCat(path, ".", key), Describe(*v), "is not a map");
  return &v->struct_value();
}

// Usable and drained, from the node's state and flags.
void Classify(SlurmNode& node) {
  node.usable = Usable(node, /*count_drain=*/true);
  node.drained = !node.usable && Usable(node, /*count_drain=*/false);
}

// A node's state words as the executor reads them: the base state in
// lower case (as 22.05 writes it), the flags in upper case.
void SetNodeState(const std::vector<std::string>& words, std::vector<std::string> flags, SlurmNode& node) {
  node.state = absl::AsciiStrToLower(words[0]);
  for (size_t i = 1; i < words.size(); ++i) flags.push_back(absl::AsciiStrToUpper(words[i]));
  node.state_flags = std::move(flags);
}

// What every layout reads of a node, before it is a SlurmNode.
struct NodeFields {
  std::vector<std::string> state_words;  // the base state first
  std::vector<std::string> flags;        // 22.05's state_flags (later: in state_words)
  int64_t cpus = 0, memory_mb = 0, alloc_cpus = 0, alloc_memory_mb = 0;
  std::string gres, gres_used;
};

// `node` (named already) from `f`: its GPUs and their type from the gres,
// what Slurm has allocated there, its state, whether it is usable or
// drained. `gres_path` and `used_path` name the two gres fields in errors.
absl::Status FillNode(NodeFields f, const std::string& gres_path, const std::string& used_path, SlurmNode& node) {
  absl::StatusOr<GresGpus> gpus = ReadGres(f.gres, gres_path);
  if (!gpus.ok()) return gpus.status();
  absl::StatusOr<GresGpus> used = ReadGres(f.gres_used, used_path);
  if (!used.ok()) return used.status();
  SetNodeState(f.state_words, std::move(f.flags), node);
  node.gpus = gpus->count;
  node.gpu_type = gpus->type;
  node.cpus = static_cast<int>(f.cpus);
  node.memory_mb = f.memory_mb;
  node.allocated = {used->count, static_cast<int>(f.alloc_cpus), f.alloc_memory_mb};
  Classify(node);
  return absl::OkStatus();
}

// 22.05's `sinfo --json` (and `scontrol show nodes --json` of later
// releases): one object a node.
absl::StatusOr<std::vector<SlurmNode>> NodesOfNodeList(const Struct& doc, std::string_view partition) {
  absl::StatusOr<std::vector<const Struct*>> objects = Objects(doc, "sinfo --json", "nodes", kMaxNodes);
  if (!objects.ok()) return objects.status();
  std::vector<SlurmNode> nodes;
  for (size_t i = 0; i < objects->size(); ++i) {
    const Struct& n = *(*objects)[i];
    const std::string path = absl::StrCat("sinfo --json: nodes[", i, "]");
    if (!partition.empty() && !InPartition(n, partition)) continue;  // not ours: not read
    SlurmNode node;
    NodeFields f;
    absl::Status st;
    st.Update(ReadString(n, "name", path, node.name));
    st.Update(ReadStateWords(n, "state", path, f.state_words));
    st.Update(ReadString(n, "address", path, node.address, /*required=*/false));
    st.Update(ReadStringList(n, "state_flags", path, f.flags));
    st.Update(ReadInt(n, "cpus", path, 0, 65535, f.cpus));
    st.Update(ReadInt(n, "real_memory", path, 0, int64_t{1} << 40, f.memory_mb));
    st.Update(ReadString(n, "gres", path, f.gres, /*required=*/false));
    st.Update(ReadStringList(n, "partitions", path, node.partitions));
    // What Slurm has allocated there, to any job (absent: nothing).
    st.Update(ReadOptionalInt(n, "alloc_cpus", path, 0, 65535, f.alloc_cpus));
    st.Update(ReadOptionalInt(n, "alloc_memory", path, 0, int64_t{1} << 40, f.alloc_memory_mb));
    st.Update(ReadString(n, "gres_used", path, f.gres_used, /*required=*/false));
    if (!st.ok()) return st;
    if (node.name.empty()) return absl::InvalidArgumentError(path + ".name: empty");
    if (absl::Status filled = FillNode(std::move(f), path + ".gres", path + ".gres_used", node); !filled.ok()) {
      return filled;
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// One record of `sinfo -N --json` of 23.02 and later: {nodes: {nodes:
// [NAME], addresses}, node: {state: [...]}, cpus: {total, allocated},
// memory: {maximum, allocated}, gres: {total, used}, partition: {name}}.
absl::Status ReadSinfoRecord(const Struct& r, const std::string& path, SlurmNode& node) {
  absl::StatusOr<const Struct*> names = SubMap(r, "nodes", path);
  absl::StatusOr<const Struct*> state = SubMap(r, "node", path);
  absl::StatusOr<const Struct*> cpus = SubMap(r, "cpus", path);
  absl::StatusOr<const Struct*> memory = SubMap(r, "memory", path);
  absl::StatusOr<const Struct*> gres = SubMap(r, "gres", path);
  for (const auto* m : {&names, &state, &cpus, &memory, &gres}) {
    if (!m->ok()) return m->status();
  }
  if (*names == nullptr || *state == nullptr || *cpus == nullptr || *memory == nullptr) {
    return absl::InvalidArgumentError(path + ": not a node's record (nodes, node, cpus and memory)");
  }
  std::vector<std::string> listed, addresses;
  NodeFields f;
  absl::Status st;
  st.Update(ReadStringList(**names, "nodes", path + ".nodes", listed));
  st.Update(ReadStringList(**names, "addresses", path + ".nodes", addresses));
  st.Update(ReadStateWords(**state, "state", path + ".node", f.state_words));
  st.Update(ReadInt(**cpus, "total", path + ".cpus", 0, 65535, f.cpus));
  st.Update(ReadOptionalInt(**cpus, "allocated", path + ".cpus", 0, 65535, f.alloc_cpus));
  st.Update(ReadInt(**memory, "maximum", path + ".memory", 0, int64_t{1} << 40, f.memory_mb));
  st.Update(ReadOptionalInt(**memory, "allocated", path + ".memory", 0, int64_t{1} << 40, f.alloc_memory_mb));
  if (*gres != nullptr) {
    st.Update(ReadString(**gres, "total", path + ".gres", f.gres, false));
    st.Update(ReadString(**gres, "used", path + ".gres", f.gres_used, false));
  }
  if (!st.ok()) return st;
  if (listed.size() != 1 || listed[0].empty()) {
    return Refuse(path + ".nodes.nodes", absl::StrCat(listed.size(), " names"),
                  "is not one node (sinfo must be run with -N)");
  }
  node.name = listed[0];
  if (addresses.size() == 1) node.address = addresses[0];
  return FillNode(std::move(f), path + ".gres.total", path + ".gres.used", node);
}

// `sinfo -N --json` of 23.02 and later: one record a node and partition
// (ReadSinfoRecord); a node in several partitions is one node.
absl::StatusOr<std::vector<SlurmNode>> NodesOfSinfoRecords(const Struct& doc, std::string_view partition) {
  absl::StatusOr<std::vector<const Struct*>> objects = Objects(doc, "sinfo --json", "sinfo", kMaxNodes);
  if (!objects.ok()) return objects.status();
  std::vector<SlurmNode> nodes;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < objects->size(); ++i) {
    const Struct& r = *(*objects)[i];
    const std::string path = absl::StrCat("sinfo --json: sinfo[", i, "]");
    absl::StatusOr<const Struct*> part = SubMap(r, "partition", path);
    if (!part.ok()) return part.status();
    std::string partition_name;
    if (*part != nullptr) {
      if (absl::Status st = ReadString(**part, "name", path + ".partition", partition_name, false); !st.ok()) return st;
    }
    if (!partition.empty() && partition_name != partition) continue;  // not ours: not read
    SlurmNode node;
    if (absl::Status st = ReadSinfoRecord(r, path, node); !st.ok()) return st;
    auto [seen, fresh] = index.emplace(node.name, nodes.size());
    if (fresh) nodes.push_back(std::move(node));
    if (!partition_name.empty()) nodes[seen->second].partitions.push_back(partition_name);
  }
  return nodes;
}

}  // namespace

absl::StatusOr<std::vector<SlurmNode>> ParseSinfoJson(std::string_view text, std::string_view partition) {
  absl::StatusOr<Struct> doc = ParseDocument(text, "sinfo --json");
  if (!doc.ok()) return doc.status();
  if (absl::Status st = SlurmErrors(*doc, "sinfo --json"); !st.ok()) return st;
  if (Field(*doc, "nodes") == nullptr && Field(*doc, "sinfo") != nullptr) return NodesOfSinfoRecords(*doc, partition);
  return NodesOfNodeList(*doc, partition);
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
    std::vector<std::string> state;
    absl::Status st;
    st.Update(ReadInt(j, "job_id", path, 1, int64_t{1} << 53, job.id));
    st.Update(ReadInt(j, "user_id", path, 0, (int64_t{1} << 32) - 1, job.user_id));
    st.Update(ReadString(j, "name", path, job.name));
    st.Update(ReadStateWords(j, "job_state", path, state));
    st.Update(ReadExit(j, path, job));
    st.Update(ReadString(j, "nodes", path, job.nodes, /*required=*/false));
    st.Update(ReadString(j, "required_nodes", path, job.required_nodes, /*required=*/false));
    st.Update(ReadString(j, "partition", path, job.partition, /*required=*/false));
    st.Update(ReadOptionalInt(j, "end_time", path, 0, int64_t{1} << 40, job.end_unix_s));
    // What it holds on its node while it runs (a lease's job has one node).
    int64_t cpus = 0, per_node = 0, per_cpu = 0;
    std::string tres_per_node;
    st.Update(ReadOptionalInt(j, "cpus", path, 0, 65535, cpus));
    st.Update(ReadOptionalInt(j, "memory_per_node", path, 0, int64_t{1} << 40, per_node));
    st.Update(ReadOptionalInt(j, "memory_per_cpu", path, 0, int64_t{1} << 40, per_cpu));
    st.Update(ReadString(j, "tres_per_node", path, tres_per_node, /*required=*/false));
    if (!st.ok()) return st;
    absl::StatusOr<GresGpus> gpus = ReadGres(tres_per_node, path + ".tres_per_node");
    if (!gpus.ok()) return gpus.status();
    job.holds = {gpus->count, static_cast<int>(cpus), per_node > 0 ? per_node : per_cpu * cpus};
    job.state = state[0];
    job.phase = PhaseOfWords(state);
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
