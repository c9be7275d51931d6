#include "sim/options.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "sim/trace_columns.h"
#include "synergy/mechanism.h"
#include "synergy/policy.h"

namespace synergy::sim {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view value, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(flag, ": '", value, "' ", what));
}

bool ToDouble(absl::string_view s, double& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}
bool ToInt(absl::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// Splits argv into flag -> value ("--flag value" or "--flag=value");
// switches get "". Refuses unknown flags, repeated flags, stray words.
absl::StatusOr<std::map<std::string, std::string>> SplitFlags(
    const std::vector<std::string>& args, const std::set<std::string>& with_value,
    const std::set<std::string>& switches) {
  std::map<std::string, std::string> flags;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool inline_value = false;
    if (auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    if (flag.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected argument '", flag, "'"));
    }
    if (with_value.count(flag)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat(flag, ": missing value"));
        }
        value = args[++i];
      }
    } else if (switches.count(flag)) {
      if (inline_value) return FlagError(flag, value, "takes no value");
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag '", flag, "'"));
    }
    if (!flags.emplace(flag, value).second) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": given twice"));
    }
  }
  return flags;
}

const std::set<std::string> kCommonValueFlags = {"--cluster", "--models", "--policy",
                                                 "--round-s", "--out",    "--seed",
                                                 "--split",   "--measure", "--placement",
                                                 "--opt-branch-nodes", "--opt-simplex-iterations",
                                                 "--restart-cost", "--type-choice", "--launch-between-rounds",
                                                 "--tenants", "--fair-share-half-life-h"};
const std::set<std::string> kCommonSwitches = {"--multi-gpu", "--reference-compatible",
                                               "--progress", "--no-progress", "--resize-in-place",
                                               "--keep-leases"};

// --reference-compatible, --resize-in-place, --keep-leases,
// --restart-cost and --launch-between-rounds, and which of them go together.
absl::Status ParseRunModes(std::map<std::string, std::string>& f, CommonOptions& c) {
  c.reference_compatible = f.count("--reference-compatible") > 0;
  c.resize_in_place = f.count("--resize-in-place") > 0;
  c.keep_leases = f.count("--keep-leases") > 0;
  if (c.reference_compatible && (c.resize_in_place || c.keep_leases)) {
    return absl::InvalidArgumentError(
        "--resize-in-place and --keep-leases: not with --reference-compatible (the reference plans every round afresh)");
  }
  c.launch_between_rounds = !c.reference_compatible;
  if (f.count("--launch-between-rounds")) {
    const std::string& v = f["--launch-between-rounds"];
    if (v != "on" && v != "off") return FlagError("--launch-between-rounds", v, "is not one of on|off");
    if (c.reference_compatible && v == "on") {
      return FlagError("--launch-between-rounds", v,
                       "is not with --reference-compatible (the reference launches only in rounds)");
    }
    c.launch_between_rounds = v == "on";
  }
  if (f.count("--restart-cost")) {
    if (!ToDouble(f["--restart-cost"], c.restart_cost_s) || !(c.restart_cost_s >= 0) || c.restart_cost_s > 1e6) {
      return FlagError("--restart-cost", f["--restart-cost"], "is not a number of seconds from 0 to 1000000");
    }
    if (c.reference_compatible && c.restart_cost_s > 0) {
      return FlagError("--restart-cost", f["--restart-cost"],
                       "is not charged with --reference-compatible (the reference's restarts are free)");
    }
  }
  return absl::OkStatus();
}

// OPT's budget, --placement, --type-choice and --progress.
absl::Status ParsePlacement(std::map<std::string, std::string>& f, CommonOptions& c) {
  // OPT's work budget (no wall clock in the simulator: a run must give the
  // same result on any machine).
  for (const auto& [flag, field] : {std::pair{"--opt-branch-nodes", &c.opt_branch_nodes},
                                    std::pair{"--opt-simplex-iterations", &c.opt_simplex_iterations}}) {
    if (!f.count(flag)) continue;
    int64_t n = 0;
    if (!ToInt(f[flag], n) || n <= 0 || n > 100000000) {
      return FlagError(flag, f[flag], "is not a count between 1 and 100000000");
    }
    *field = static_cast<int>(n);
  }
  if (f.count("--placement")) {
    const std::string& p = f["--placement"];
    if (p == "consolidate") {
      c.gpu_placement = GpuPlacement::kConsolidate;
    } else if (p == "first-fit") {
      c.gpu_placement = GpuPlacement::kFirstFit;
    } else {
      return FlagError("--placement", p, "is not one of consolidate|first-fit");
    }
  }
  if (f.count("--type-choice")) {
    const std::string& choice = f["--type-choice"];
    const std::optional<TypeChoice> named = TypeChoiceNamed(choice);
    if (!named) return FlagError("--type-choice", choice, "is not one of " + absl::StrJoin(TypeChoiceNames(), "|"));
    c.type_choice = *named;
  }
  if (f.count("--progress") && f.count("--no-progress")) {
    return absl::InvalidArgumentError("--progress and --no-progress: pick one");
  }
  if (f.count("--progress")) c.progress = true;
  if (f.count("--no-progress")) c.progress = false;
  return absl::OkStatus();
}

// --tenants NAME=GPUS[:borrow],...: each tenant once, a quota of 1 GPU or
// more; not with --reference-compatible (the reference has no tenants).
absl::Status ParseTenants(const std::string& text, bool reference_compatible, CommonOptions& c) {
  const std::string rule = "is not NAME=GPUS[:borrow],... (e.g. vision=8:borrow,nlp=8)";
  if (reference_compatible) return FlagError("--tenants", text, "is not with --reference-compatible");
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    std::vector<std::string> name_quota = absl::StrSplit(part, '=');
    if (name_quota.size() != 2 || name_quota[0].empty() || !IsPlainTraceName(name_quota[0])) {
      return FlagError("--tenants", text, rule);
    }
    std::vector<std::string> quota_borrow = absl::StrSplit(name_quota[1], ':');
    int64_t gpus = 0;
    if (quota_borrow.size() > 2 || !ToInt(quota_borrow[0], gpus) || gpus < 1 || gpus > (1 << 20) ||
        (quota_borrow.size() == 2 && quota_borrow[1] != "borrow")) {
      return FlagError("--tenants", text, rule);
    }
    if (std::find(c.tenant_names.begin(), c.tenant_names.end(), name_quota[0]) != c.tenant_names.end()) {
      return FlagError("--tenants", text, absl::StrCat("names ", name_quota[0], " twice"));
    }
    c.tenant_names.push_back(name_quota[0]);
    c.tenant_quotas.push_back(TenantQuota{static_cast<int>(gpus), quota_borrow.size() == 2});
  }
  return absl::OkStatus();
}

// --split IMAGE,LANGUAGE,SPEECH: three percentages, not all 0.
absl::Status ParseSplit(const std::string& text, std::array<int, 3>& out) {
  std::vector<std::string> parts = absl::StrSplit(text, ',');
  int64_t sum = 0;
  bool ok = parts.size() == 3;
  std::array<int, 3> split{};
  for (size_t i = 0; ok && i < 3; ++i) {
    int64_t v = 0;
    ok = ToInt(parts[i], v) && v >= 0 && v <= 100;
    if (ok) split[i] = static_cast<int>(v), sum += v;
  }
  if (!ok || sum <= 0) {
    return FlagError("--split", text, "is not three percentages IMAGE,LANGUAGE,SPEECH (e.g. 20,70,10)");
  }
  out = split;
  return absl::OkStatus();
}

// The generated workload's --seed, --split, --measure and --multi-gpu.
absl::Status ParseWorkload(std::map<std::string, std::string>& f, WorkloadOptions& w) {
  if (f.count("--seed")) {
    int64_t seed = 0;
    if (!ToInt(f["--seed"], seed) || seed < 0) {
      return FlagError("--seed", f["--seed"], "is not a non-negative integer");
    }
    w.seed = static_cast<uint64_t>(seed);
  }
  if (f.count("--split")) {
    if (auto st = ParseSplit(f["--split"], w.split_percent); !st.ok()) return st;
  }
  if (f.count("--measure")) {
    std::vector<std::string> parts = absl::StrSplit(f["--measure"], ',');
    int64_t a = 0, b = 0;
    if (parts.size() != 2 || !ToInt(parts[0], a) || !ToInt(parts[1], b) || a < 0 || b <= a) {
      return FlagError("--measure", f["--measure"], "is not FROM,TO with 0 <= FROM < TO");
    }
    w.measure_from = a;
    w.measure_to = b;
  }
  w.multi_gpu = f.count("--multi-gpu") > 0;
  return absl::OkStatus();
}

absl::Status ParseCommon(std::map<std::string, std::string>& f, CommonOptions& c,
                         WorkloadOptions& w) {
  if (f.count("--cluster")) c.cluster_path = f["--cluster"];
  if (f.count("--models")) c.models_path = f["--models"];
  if (!f.count("--policy")) return absl::InvalidArgumentError("--policy: required (fifo|srtf|las|ftf)");
  c.policy = f["--policy"];
  if (auto p = MakePolicy(c.policy); !p.ok()) {
    return FlagError("--policy", c.policy, absl::StrCat("is not one of ", absl::StrJoin(PolicyNames(), "|")));
  }
  if (f.count("--round-s")) {
    if (!ToDouble(f["--round-s"], c.round_s) || c.round_s <= 0) {
      return FlagError("--round-s", f["--round-s"], "is not a number > 0");
    }
  }
  if (!f.count("--out")) return absl::InvalidArgumentError("--out: required (a directory)");
  c.out_dir = f["--out"];
  if (c.out_dir.empty()) return FlagError("--out", "", "is not a directory name");
  if (absl::Status st = ParseRunModes(f, c); !st.ok()) return st;
  if (absl::Status st = ParsePlacement(f, c); !st.ok()) return st;
  if (f.count("--tenants")) {
    if (absl::Status st = ParseTenants(f["--tenants"], c.reference_compatible, c); !st.ok()) return st;
  }
  if (f.count("--fair-share-half-life-h")) {
    const std::string& v = f["--fair-share-half-life-h"];
    if (!ToDouble(v, c.fair_share_half_life_h) || !(c.fair_share_half_life_h > 0) || c.fair_share_half_life_h > 87600) {
      return FlagError("--fair-share-half-life-h", v, "is not a number of hours from above 0 to 87600");
    }
    if (c.reference_compatible) return FlagError("--fair-share-half-life-h", v, "is not with --reference-compatible");
  }
  return ParseWorkload(f, w);
}

absl::Status CheckTraceExclusive(std::map<std::string, std::string>& f) {
  for (const char* flag : {"--seed", "--split", "--measure", "--multi-gpu"}) {
    if (f.count(flag)) {
      return absl::InvalidArgumentError(
          absl::StrCat(flag, ": only for a generated workload, not with --trace"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunOptions> ParseRunOptions(const std::vector<std::string>& args) {
  std::set<std::string> value_flags = kCommonValueFlags;
  value_flags.insert({"--trace", "--load", "--mechanism", "--record", "--decisions"});
  auto flags = SplitFlags(args, value_flags, kCommonSwitches);
  if (!flags.ok()) return flags.status();
  auto& f = *flags;
  RunOptions o;
  if (auto st = ParseCommon(f, o.common, o.workload); !st.ok()) return st;
  if (!f.count("--mechanism")) {
    return absl::InvalidArgumentError(absl::StrCat("--mechanism: required (", absl::StrJoin(MechanismNames(), "|"), ")"));
  }
  o.mechanism = f["--mechanism"];
  if (f.count("--decisions")) {
    o.decisions_path = f["--decisions"];
    if (o.decisions_path.empty()) return FlagError("--decisions", "", "is not a file name");
  }
  if (auto m = MakeMechanism(o.mechanism); !m.ok()) {
    return FlagError("--mechanism", o.mechanism,
                     absl::StrCat("is not one of ", absl::StrJoin(MechanismNames(), "|")));
  }
  if (f.count("--trace") == f.count("--load")) {
    return absl::InvalidArgumentError("give exactly one of --trace FILE or --load J");
  }
  if (f.count("--trace")) {
    if (auto st = CheckTraceExclusive(f); !st.ok()) return st;
    o.workload.trace_path = f["--trace"];
    if (f.count("--record")) {
      return absl::InvalidArgumentError("--record: only for a generated workload");
    }
  } else {
    if (!ToDouble(f["--load"], o.workload.load_jobs_per_hour) ||
        o.workload.load_jobs_per_hour <= 0) {
      return FlagError("--load", f["--load"], "is not a number of jobs per hour > 0");
    }
    if (f.count("--record")) o.record_path = f["--record"];
  }
  return o;
}

absl::StatusOr<SweepOptions> ParseSweepOptions(const std::vector<std::string>& args) {
  std::set<std::string> value_flags = kCommonValueFlags;
  value_flags.insert({"--loads", "--mechanisms", "--seeds"});
  auto flags = SplitFlags(args, value_flags, kCommonSwitches);
  if (!flags.ok()) return flags.status();
  auto& f = *flags;
  SweepOptions o;
  if (auto st = ParseCommon(f, o.common, o.workload); !st.ok()) return st;
  const std::string loads = f.count("--loads") ? f["--loads"] : "4,5,6,7,8,9,10";
  for (absl::string_view part : absl::StrSplit(loads, ',')) {
    double v = 0;
    if (!ToDouble(part, v) || v <= 0) return FlagError("--loads", loads, "is not a list of loads > 0");
    o.loads.push_back(v);
  }
  const std::string mechs = f.count("--mechanisms") ? f["--mechanisms"] : "proportional,greedy,tune";
  for (absl::string_view part : absl::StrSplit(mechs, ',')) {
    if (!MakeMechanism(std::string(part)).ok()) {
      return FlagError("--mechanisms", mechs,
                       absl::StrCat("names a mechanism not in ", absl::StrJoin(MechanismNames(), "|")));
    }
    o.mechanisms.emplace_back(part);
  }
  if (f.count("--seeds")) {
    if (f.count("--seed")) return FlagError("--seeds", f["--seeds"], "and --seed: give one of them");
    for (absl::string_view part : absl::StrSplit(f["--seeds"], ',')) {
      int64_t seed = 0;
      if (!ToInt(part, seed) || seed < 0) {
        return FlagError("--seeds", f["--seeds"], "is not a list of non-negative integers");
      }
      o.seeds.push_back(static_cast<uint64_t>(seed));
    }
  } else {
    o.seeds.push_back(o.workload.seed);
  }
  return o;
}

std::string RunUsage() {
  return "usage: synergy-sim run [--cluster FILE] [--models FILE]\n"
         "         (--trace FILE | --load J [--seed S] [--split I,L,S] [--multi-gpu]\n"
         "                                  [--measure FROM,TO] [--record FILE])\n"
         "         --policy fifo|srtf|las|ftf\n"
         "         --mechanism proportional|greedy|tune|tune-graded|opt|requested [--opt-branch-nodes 2000] [--opt-simplex-iterations 100000]\n"
         "         [--round-s 300] [--placement consolidate|first-fit]\n"
         "         [--restart-cost S] [--resize-in-place] [--keep-leases] [--launch-between-rounds on|off]\n"
         "         [--type-choice first-fit|gpu-throughput|best-allocation|program] [--tenants NAME=GPUS[:borrow],...]\n"
         "         [--fair-share-half-life-h H]\n"
         "         [--reference-compatible] [--progress|--no-progress] [--decisions FILE] --out DIR\n"
         "Without --cluster/--models the embedded 128-GPU cluster and model zoo are used.\n"
         "--measure defaults to 4000,5000 (the reference's window); --multi-gpu mixes 1, 2,\n"
         "4 and 8-GPU jobs (always on with --reference-compatible, as in the reference).\n"
         "--placement first-fit is the reference's --no_placement (its harness's setting).\n"
         "--tenants vision=8:borrow,nlp=8: GPU quotas by the trace's tenant column, as\n"
         "synergyd's auth.tenants (a tenant not named has none; :borrow may use what others leave).\n"
         "--fair-share-half-life-h H: fair share, as synergyd's fair_share_half_life: the tenant\n"
         "(then user) that held fewest GPU-hours lately, halving every H hours, goes first.\n"
         "--restart-cost S: a job whose lease ends and starts again (resumed, moved) loses S s\n"
         "of progress; with --resize-in-place a change of CPUs or memory on the same GPUs is\n"
         "free (else a restart). Either keeps leases as synergyd does (--keep-leases alone:\n"
         "at no cost): a running job stays where it is unless moving or growing it is worth a\n"
         "restart. Restarts and resizes are counted per job in jobs.csv.\n"
         "--launch-between-rounds on (the default; off with --reference-compatible): when a job\n"
         "finishes or arrives between rounds, waiting jobs start at once on what is free, placed\n"
         "as a round would without touching running jobs; off: only rounds launch (the paper's).\n"
         "--decisions FILE: every assignment each round books, one CSV line per server\n"
         "(time_s,job_id,server,gpus,cpus,mem_gb,speedup).\n"
         "On a cluster whose servers name several gpu_type values, each job runs on one type,\n"
         "chosen by --type-choice: first-fit (heterogeneity-unaware, the default), gpu-throughput\n"
         "(the type where the job is fastest at the proportional share, as Gavel) or\n"
         "best-allocation (where it is fastest at its best CPUs and memory there: Synergy's)\n"
         "or program (types and allocations together, over each type's pooled resources).\n";
}

std::string SweepUsage() {
  return "usage: synergy-sim sweep [--cluster FILE] [--models FILE] --policy P\n"
         "         [--loads 4,5,6,7,8,9,10] [--mechanisms proportional,greedy,tune]\n"
         "         [--seed S | --seeds S1,S2,...] [--split I,L,S] [--multi-gpu] [--measure FROM,TO]\n"
         "         [--round-s 300] [--placement consolidate|first-fit]\n"
         "         [--restart-cost S] [--resize-in-place] [--keep-leases] [--launch-between-rounds on|off]\n"
         "         [--type-choice first-fit|gpu-throughput|best-allocation|program] [--tenants NAME=GPUS[:borrow],...]\n"
         "         [--reference-compatible] [--progress|--no-progress] --out DIR\n"
         "Runs every load x mechanism (x seed), writes DIR/sweep.csv (a row per run),\n"
         "DIR/load-MECH.csv (per load: mean and spread over seeds), one run directory each,\n"
         "JCT CDFs and DIR/plots.gp; with gnuplot installed it draws each plot as SVG and PNG:\n"
         "mean_jct_vs_load (mean and p99 JCT, error bars over seeds), jct_cdf-loadL (all,\n"
         "1-GPU and multi-GPU jobs), utilisation-loadL (GPU, CPU and memory; the\n"
         "measurement window shaded).\n";
}

absl::StatusOr<ImportOptions> ParseImportOptions(const std::vector<std::string>& args) {
  if (args.empty() || args[0].rfind("--", 0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat("FORMAT: required (", absl::StrJoin(TraceFormatNames(), "|"), ")"));
  }
  ImportOptions o;
  o.format = args[0];
  if (auto format = MakeTraceFormat(o.format); !format.ok()) return format.status();
  auto flags = SplitFlags(std::vector<std::string>(args.begin() + 1, args.end()),
                          {"--in", "--nodes", "--times", "--out", "--cluster", "--models", "--gpu-models", "--model-rule",
                           "--split", "--seed"},
                          {"--keep-failed"});
  if (!flags.ok()) return flags.status();
  auto& f = *flags;
  for (const char* required : {"--in", "--out"}) {
    if (!f.count(required) || f[required].empty()) return FlagError(required, f[required], "is required: a path");
  }
  if (f.count("--nodes") && f.count("--cluster")) {
    return absl::InvalidArgumentError("--nodes and --cluster: the machine list is the cluster; give one");
  }
  o.in_path = f["--in"];
  o.out_dir = f["--out"];
  for (auto [flag, path] : {std::pair{"--nodes", &o.nodes_path}, std::pair{"--cluster", &o.cluster_path},
                            std::pair{"--models", &o.models_path}, std::pair{"--gpu-models", &o.gpu_models_path},
                            std::pair{"--times", &o.times_path}}) {
    if (!f.count(flag)) continue;
    if (f[flag].empty()) return FlagError(flag, "", "is not a path");
    *path = f[flag];
  }
  if (f.count("--model-rule")) {
    const std::string& rule = f["--model-rule"];
    if (rule != "request" && rule != "split") return FlagError("--model-rule", rule, "is not one of request|split");
    o.model_rule = rule == "split" ? ModelRule::kSplit : ModelRule::kRequest;
  }
  if (f.count("--split")) {
    if (auto st = ParseSplit(f["--split"], o.models.split_percent); !st.ok()) return st;
  }
  if (f.count("--seed")) {
    int64_t seed = 0;
    if (!ToInt(f["--seed"], seed) || seed < 0) return FlagError("--seed", f["--seed"], "is not a non-negative integer");
    o.models.seed = static_cast<uint64_t>(seed);
  }
  o.keep_failed = f.count("--keep-failed") > 0;
  return o;
}

std::string ImportUsage() {
  return absl::StrCat(
      "usage: synergy-sim import ", absl::StrJoin(TraceFormatNames(), "|"),
      " --in FILE [--nodes FILE | --cluster FILE] [--times FILE] --out DIR\n"
      "         [--models FILE] [--gpu-models FILE] [--model-rule request|split] [--split I,L,S]\n"
      "         [--seed S] [--keep-failed]\n"
      "Turns a public GPU-cluster trace into DIR/trace.csv (replay it with synergy-sim run\n"
      "--trace), DIR/cluster.yaml (from --nodes: openb's node list, PAI's machine spec) and\n"
      "DIR/import.json (every input line: kept, or dropped and why). Formats:\n"
      "  openb    Alibaba openb 2023 pods (cluster-trace-gpu-v2023/csv/openb_pod_list_*.csv);\n"
      "           --nodes openb_node_list_gpu_node.csv; its packing variants (multigpu*: no times)\n"
      "           with --times openb_pod_list_default.csv (a pod takes its namesake's times there,\n"
      "           an added pod those of a pod with as many GPUs, drawn by --seed)\n"
      "  pai2020  Alibaba PAI 2020 pai_task_table.csv (no header); --nodes pai_machine_spec.csv\n"
      "  helios   SenseTime Helios cluster_log.csv\n"
      "  philly   Microsoft Philly cluster_job_log (one JSON array, read a job at a time)\n"
      "A job's iterations make it run for its recorded duration at its recorded CPUs and memory\n"
      "(the `requested` mechanism's allocation) on the cluster: --nodes's, else --cluster's, else\n"
      "the embedded 128-GPU one; replay on that cluster. Models: --model-rule request (the\n"
      "default where the trace records CPUs) reads the CPUs a job asked for per GPU (>= 8: an\n"
      "image model, <= 2: a language model, else drawn by --split); split draws every job's by\n"
      "--split (20,70,10), seeded by --seed (42). GPU models map to the zoo's GPU types by\n"
      "configs/traces/gpu-models.yaml (compiled in). A share of a GPU counts as one GPU;\n"
      "CPU-only jobs are dropped, failed ones too unless --keep-failed. Docs: docs/traces.md.\n");
}

}  // namespace synergy::sim
