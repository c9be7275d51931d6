// synergyctl: the operator's command line for synergyd.
//   synergyctl [--server HOST:PORT[,HOST:PORT...]] [--token T] [--ca FILE] [--server-name NAME] [--plaintext] COMMAND ...
// The commands, their help and the bash completion are in cli/commands.cc
// (synergyctl --help, synergyctl COMMAND --help).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "grpc/support/log.h"
#include "cli/commands.h"
#include "cli/history.h"
#include "cli/job_actions.h"
#include "cli/job_logs.h"
#include "cli/job_pages.h"
#include "cli/job_selection.h"
#include "cli/message_output.h"
#include "cli/suggest.h"
#include "cli/tables.h"
#include "cli/usage.h"
#include "service/auth.h"
#include "service/channel.h"
#include "service/credentials.h"
#include "service/escape.h"
#include "service/job_arrays.h"
#include "service/job_spec.h"
#include "service/request_limits.h"
#include "service/rfc3339.h"
#include "service/tls_check.h"
#include "synergy/v1/synergy.grpc.pb.h"
#include "synergy/version.h"

namespace {

using synergy::service::NowUnixMs;
namespace v1 = synergy::v1;

int Usage(const std::string& why) {
  std::cerr << "synergyctl: " << why << "\n" << synergy::cli::Usage();
  return 2;
}

struct Context {
  std::string server;
  std::string target;  // the address of server's list the calls go to
  std::string token;
  std::unique_ptr<v1::SchedulerService::Stub> stub;
  synergy::service::ChannelSecurity security;
  std::unique_ptr<grpc::ClientContext> Call(bool /*mutating*/) {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    synergy::service::AttachCredential(*ctx, token);
    return ctx;
  }
};

int Refused(const Context& c, const grpc::Status& st) {
  // A call that failed on TLS: why, in one line, from a handshake of our
  // own (gRPC says "certificate verify failed" for every cause).
  if (st.error_code() == grpc::StatusCode::UNAVAILABLE && !c.security.plaintext &&
      synergy::service::LooksLikeTlsFailure(st.error_message())) {
    const absl::Status why = synergy::service::ExplainTlsFailure(c.target, c.security, NowUnixMs() / 1000);
    if (!why.ok()) {
      std::cerr << "synergyctl: cannot reach synergyd at " << c.target << ": " << why.message() << "\n";
      return 1;
    }
  }
  // Whatever synergyd says is shown escaped: a message may quote a value
  // another user chose.
  std::cerr << "synergyctl: " << synergy::service::EscapeForDisplay(st.error_message()) << "\n";
  // The daemon refusing bad input is bad input.
  return st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? 2 : 1;
}


// Every flag of the command line, as given.
struct Flags {
  std::vector<std::string> args;  // the command and its words
  std::string output, file, states, since, reason, profile_of;
  std::optional<int> priority;
  synergy::cli::LogsOptions logs;
  bool help = false;
  bool yes = false;  // --yes: a selector may pick more than one job
  bool full = false;  // --full: get -w shows every listing whole
  int watch_s = 0, interval_s = 0;
  size_t limit = 0;  // --limit: at most this many jobs listed (0 = all)
  synergy::cli::JobSelection selection;
  // submit: --array, --after-ok, --after-any (over the spec file's).
  std::string array;
  std::vector<std::string> after_ok, after_any;
  std::string by = "user";  // usage --by
};

// How a flag was read: taken (or not one of this group), or refused with
// an exit code.
constexpr int kTaken = -1;
constexpr int kNotMine = -2;

// The next word as `out` (false: there is none).
struct FlagReader {
  int argc;
  char** argv;
  int& i;
  bool Value(std::string& out) {
    if (i + 1 >= argc) return false;
    out = argv[++i];
    return true;
  }
};

// The connection's flags and those that choose and show jobs.
int ReadListingFlag(const std::string& a, FlagReader& r, Context& c, Flags& f) {
  if (a == "--server") return r.Value(c.server) ? kTaken : Usage("--server needs HOST:PORT[,HOST:PORT...]");
  if (a == "--token") return r.Value(c.token) ? kTaken : Usage("--token needs a value");
  if (a == "--ca") return r.Value(c.security.ca_file) ? kTaken : Usage("--ca needs a PEM file");
  if (a == "--server-name") return r.Value(c.security.server_name) ? kTaken : Usage("--server-name needs a name");
  if (a == "--plaintext") {
    c.security.plaintext = true;
    return kTaken;
  }
  if (a == "-o" || a == "--output") {
    if (!r.Value(f.output)) return Usage("-o needs wide, json, yaml or name");
    if (f.output != "wide" && !synergy::cli::IsStructuredOutput(f.output) && f.output != "name" && f.output != "csv" &&
        f.output != "trace") {
      return Usage("-o: " + synergy::service::QuoteForMessage(f.output) + " is not wide, json, yaml, name, csv or trace");
    }
    return kTaken;
  }
  if (a == "--since") {
    return r.Value(f.since) ? kTaken : Usage("--since needs a duration (2h) or a time (2026-12-04T09:00:00Z)");
  }
  if (a == "--state") {
    if (!r.Value(f.states)) return Usage("--state needs states, e.g. running,queued");
    auto parsed = synergy::cli::ParseStates(f.states);
    if (!parsed.ok()) return Usage(std::string(parsed.status().message()));
    f.selection.states = *parsed;
    return kTaken;
  }
  if (a == "--limit") {
    std::string v;
    int n = 0;
    if (!r.Value(v) || !absl::SimpleAtoi(v, &n) || n < 1 || n > 10'000'000) {
      return Usage("--limit needs a number of jobs from 1 to 10000000");
    }
    f.limit = static_cast<size_t>(n);
    return kTaken;
  }
  if (a == "--user") return r.Value(f.selection.user) ? kTaken : Usage("--user needs a user name");
  if (a == "--tenant") return r.Value(f.selection.tenant) ? kTaken : Usage("--tenant needs a tenant");
  if (a == "--sort-by") {
    if (!r.Value(f.selection.sort_by)) return Usage("--sort-by needs a key");
    if (auto st = synergy::cli::CheckSortKey(f.selection.sort_by); !st.ok()) return Usage(std::string(st.message()));
    return kTaken;
  }
  return kNotMine;
}

// The flags of one command each: watching, priority, logs, files, help.
int ReadCommandFlag(const std::string& a, FlagReader& r, Flags& f) {
  std::string v;
  if (a == "-w" || a == "--watch") {
    f.watch_s = 2;
  } else if (a == "--interval") {
    if (!r.Value(v) || !absl::SimpleAtoi(v, &f.interval_s) || f.interval_s < 1 || f.interval_s > 3600) {
      return Usage("--interval needs seconds from 1 to 3600");
    }
  } else if (a == "--priority") {
    int p = 0;
    if (!r.Value(v) || !absl::SimpleAtoi(v, &p) || p < 0 || p > synergy::service::kMaxPriorityClass) {
      return Usage("--priority needs a priority class from 0 to " + std::to_string(synergy::service::kMaxPriorityClass));
    }
    f.priority = p;
  } else if (a == "--profile-of") {
    if (!r.Value(f.profile_of)) return Usage("--profile-of needs a job id");
  } else if (a == "--reason") {
    if (!r.Value(f.reason)) return Usage("--reason needs a text");
  } else if (a == "--follow" || (a == "-f" && !f.args.empty() && f.args[0] == "logs")) {
    f.logs.follow = true;
  } else if (a == "--lease") {
    if (!r.Value(v) || !absl::SimpleAtoi(v, &f.logs.epoch) || f.logs.epoch < 1) {
      return Usage("--lease needs a lease number (1 or more)");
    }
  } else if (a == "--rank") {
    if (!r.Value(v) || !absl::SimpleAtoi(v, &f.logs.rank) || f.logs.rank < 0) return Usage("--rank needs a rank (0 or more)");
  } else if (a == "--stderr") {
    f.logs.stderr_stream = true;
  } else if (a == "-f" || a == "--file") {
    if (!r.Value(f.file)) return Usage("-f needs a file");
  } else if (a == "-h" || a == "--help") {
    f.help = true;
  } else if (a == "-y" || a == "--yes") {
    f.yes = true;
  } else if (a == "--full") {
    f.full = true;
  } else {
    return kNotMine;
  }
  return kTaken;
}

// submit's: an array and dependencies, as sbatch --array and --dependency;
// and usage's --by.
int ReadSubmitFlag(const std::string& a, FlagReader& r, Flags& f) {
  if (a == "--by") {
    if (!r.Value(f.by)) return Usage("--by needs user or tenant");
    if (auto st = synergy::cli::CheckUsageKey(f.by); !st.ok()) return Usage(std::string(st.message()));
    return kTaken;
  }
  if (a == "--array") return r.Value(f.array) ? kTaken : Usage("--array needs indices, e.g. 0-99 or 0-99%10");
  if (a != "--after-ok" && a != "--after-any") return kNotMine;
  std::string v;
  if (!r.Value(v)) return Usage(a + " needs job ids, e.g. j-000012,j-000013");
  std::vector<std::string>& list = a == "--after-ok" ? f.after_ok : f.after_any;
  for (absl::string_view id : absl::StrSplit(v, ',', absl::SkipEmpty())) {
    list.push_back(synergy::service::CanonicalJobName(id));
  }
  return kTaken;
}

// Every flag synergyctl knows (the commands' table, and the global ones),
// for "did you mean".
std::vector<std::string> KnownFlags() {
  std::vector<std::string> flags = {"--server", "--token", "--ca", "--server-name", "--plaintext", "--version", "--help"};
  for (const synergy::cli::CommandHelp& command : synergy::cli::Commands()) {
    for (const std::string& w : command.words) {
      if (!w.empty() && w[0] == '-') flags.push_back(w);
    }
  }
  return flags;
}

// The command line into `c` and `f`; kTaken, or the exit code.
int ReadFlags(int argc, char** argv, Context& c, Flags& f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    FlagReader reader{argc, argv, i};
    int rc = ReadListingFlag(a, reader, c, f);
    if (rc == kNotMine) rc = ReadCommandFlag(a, reader, f);
    if (rc == kNotMine) rc = ReadSubmitFlag(a, reader, f);
    if (rc != kNotMine && rc != kTaken) return rc;
    if (rc == kTaken) continue;
    if (a == "--version") {
      std::cout << synergy::VersionLine("synergyctl") << "\n";
      return 0;
    }
    if (!a.empty() && a[0] == '-' && a != "-") {
      return Usage("unknown flag '" + a + "'" + synergy::cli::DidYouMean(a, KnownFlags()));
    }
    // An array's job as "j-000100[3]" (as tables fold it) is sent as
    // "j-000100_3"; nothing else ends in "[N]".
    f.args.push_back(f.args.empty() ? a : synergy::service::CanonicalJobName(a));
  }
  return kTaken;
}

// Flags given to a command they are not for; kTaken when none.
int CheckFlagsFit(Flags& f) {
  if (f.interval_s > 0) {
    if (f.watch_s == 0) return Usage("--interval goes with -w");
    f.watch_s = f.interval_s;
  }
  if (f.watch_s > 0 && (f.args.empty() || f.args[0] != "get")) return Usage("-w is for get only");
  if (f.full && f.watch_s == 0) return Usage("--full goes with -w");
  if (f.help) {
    const std::string one = f.args.empty() ? "" : synergy::cli::HelpFor(f.args[0]);
    std::cout << (one.empty() ? synergy::cli::Usage() : one);
    return 0;
  }
  if (f.args.empty()) return Usage("no command");
  const std::string& cmd = f.args[0];
  if (f.priority && cmd != "update") return Usage("--priority is for update only");
  if (!f.reason.empty() && cmd != "drain") return Usage("--reason is for drain only");
  if (!f.profile_of.empty() && cmd != "submit") return Usage("--profile-of is for submit only");
  if ((!f.array.empty() || !f.after_ok.empty() || !f.after_any.empty()) && cmd != "submit") {
    return Usage("--array, --after-ok and --after-any are for submit only");
  }
  if ((f.logs.follow || f.logs.epoch != 0 || f.logs.rank != 0 || f.logs.stderr_stream) && cmd != "logs") {
    return Usage("--follow, --lease, --rank and --stderr are for logs only");
  }
  if (f.output == "csv" && cmd != "history" && cmd != "usage") return Usage("-o csv is for history and usage only");
  if (f.by != "user" && cmd != "usage") return Usage("--by is for usage only");
  if (f.output == "trace" && cmd != "history") return Usage("-o trace is for history only");
  return kTaken;
}

// ---- the commands that need no synergyd

int Completion(const Flags& f) {
  const std::string script = synergy::cli::CompletionScript(f.args.size() == 2 ? f.args[1] : "");
  if (script.empty()) return Usage("completion needs a shell: bash");
  std::cout << script;
  return 0;
}

int HashCredential(const Flags& f) {
  if (f.args.size() != 1) return Usage("hash-credential reads the credential from stdin");
  std::string credential;
  std::getline(std::cin, credential);
  if (auto st = synergy::service::ValidateCredentialText(credential, "credential"); !st.ok() || credential.empty()) {
    std::cerr << "synergyctl: " << (credential.empty() ? "credential: empty" : st.message()) << "\n";
    return 2;
  }
  std::cout << synergy::service::Sha256Hex(credential) << "\n";
  return 0;
}

// ---- synergyd's commands

// `spec`'s profile points from what job `profile_of` measured.
int TakeProfileOf(Context& c, const Flags& f, v1::JobSpec& spec) {
  if (spec.profile_points_size() > 0) return Usage(f.file + ": profile_points: given, and --profile-of too");
  v1::GetJobRequest get;
  get.set_job_id(f.profile_of);
  v1::Job measured;
  auto ctx = c.Call(false);
  if (grpc::Status st = c.stub->GetJob(ctx.get(), get, &measured); !st.ok()) return Refused(c, st);
  if (measured.measured_profile().points_size() == 0) {
    std::cerr << "synergyctl: --profile-of: job " << synergy::service::EscapeForDisplay(f.profile_of)
              << " has no measured profile\n";
    return 1;
  }
  // A profile's points are the whole job's, on its GPUs.
  if (measured.spec().gpus() != spec.gpus()) {
    std::cerr << "synergyctl: --profile-of: job " << synergy::service::EscapeForDisplay(f.profile_of)
              << " was measured on " << measured.spec().gpus() << " GPUs, " << f.file << " asks for " << spec.gpus()
              << "\n";
    return 2;
  }
  *spec.mutable_profile_points() = measured.measured_profile().points();
  spec.set_profile_gpu_type(measured.measured_profile().gpu_type());
  spec.set_profile(false);
  return kTaken;
}

int Submit(Context& c, const Flags& f) {
  if (f.file.empty() || f.args.size() != 1) return Usage("submit needs -f JOB.yaml (or -f - for stdin)");
  std::stringstream ss;
  if (f.file == "-") {
    ss << std::cin.rdbuf();
  } else {
    std::ifstream in(f.file);
    if (!in) return Usage(f.file + ": cannot open");
    ss << in.rdbuf();
  }
  auto spec = synergy::service::ParseJobSpecYaml(ss.str(), f.file == "-" ? "<stdin>" : f.file);
  if (!spec.ok()) {
    std::cerr << "synergyctl: " << spec.status().message() << "\n";
    return 2;
  }
  if (!f.profile_of.empty()) {
    if (const int rc = TakeProfileOf(c, f, *spec); rc != kTaken) return rc;
  }
  if (!f.array.empty()) spec->set_array(f.array);
  for (const std::string& id : f.after_ok) spec->add_after_ok(id);
  for (const std::string& id : f.after_any) spec->add_after_any(id);
  v1::SubmitJobRequest req;
  *req.mutable_spec() = *spec;
  v1::SubmitJobResponse resp;
  auto ctx = c.Call(true);
  grpc::Status st = c.stub->SubmitJob(ctx.get(), req, &resp);
  if (!st.ok()) return Refused(c, st);
  // stdout is the id alone (scripts take it); an array's size on stderr.
  std::cout << synergy::service::EscapeForDisplay(resp.job_id()) << "\n";
  if (resp.jobs() > 1) {
    std::cerr << "synergyctl: array " << synergy::service::EscapeForDisplay(resp.job_id()) << " of " << resp.jobs()
              << " jobs (" << synergy::service::EscapeForDisplay(spec->array()) << "): verbs given its id act on all\n";
  }
  return 0;
}

// One ListJobs call (a page), for ListAllJobs.
synergy::cli::ListCall ListCallOf(Context& c) {
  return [&c](const v1::ListJobsRequest& req, v1::ListJobsResponse* page) {
    auto ctx = c.Call(false);
    return c.stub->ListJobs(ctx.get(), req, page);
  };
}

// The jobs of array `id` (consecutive ids from its own), or none when `id`
// is not an array's; an error where synergyd refused.
grpc::Status ArrayJobs(Context& c, const std::string& id, std::vector<v1::Job>& jobs) {
  if (synergy::service::SplitArrayJobName(id)) return grpc::Status::OK;  // one job of an array
  v1::ListJobsRequest req;
  req.set_array_id(id);
  return synergy::cli::ListAllJobs(ListCallOf(c), req, 0, jobs);
}

// The jobs `get jobs [ID...]` shows; kTaken, kSomeMissing where a named
// job was not found (the others are shown, then exit 1), or the exit code.
constexpr int kSomeMissing = -3;
int FetchJobs(Context& c, const Flags& f, std::vector<v1::Job>& jobs) {
  // Named jobs one by one (NOT_FOUND names the id); else the list,
  // filtered by state in synergyd.
  v1::ListJobsResponse resp;
  int missing_rc = kTaken;
  if (f.args.size() > 2) {
    for (size_t i = 2; i < f.args.size(); ++i) {
      // An array's id lists its jobs.
      std::vector<v1::Job> of_array;
      if (grpc::Status st = ArrayJobs(c, f.args[i], of_array); !st.ok()) return Refused(c, st);
      for (v1::Job& j : of_array) *resp.add_jobs() = std::move(j);
      if (!of_array.empty()) continue;
      v1::GetJobRequest req;
      req.set_job_id(f.args[i]);
      auto ctx = c.Call(false);
      v1::Job job;
      grpc::Status st = c.stub->GetJob(ctx.get(), req, &job);
      if (st.error_code() == grpc::StatusCode::NOT_FOUND) {
        std::cerr << "synergyctl: " << synergy::service::EscapeForDisplay(st.error_message()) << "\n";
        missing_rc = kSomeMissing;
        continue;
      }
      if (!st.ok()) return Refused(c, st);
      *resp.add_jobs() = std::move(job);
    }
  } else {
    v1::ListJobsRequest req;
    for (v1::JobState s : f.selection.states) req.add_states(s);
    req.set_owner(f.selection.user);
    req.set_tenant(f.selection.tenant);
    std::vector<v1::Job> listed;
    if (grpc::Status st = synergy::cli::ListAllJobs(ListCallOf(c), req, f.limit, listed); !st.ok()) return Refused(c, st);
    for (v1::Job& j : listed) *resp.add_jobs() = std::move(j);
  }
  jobs = synergy::cli::SelectJobs({resp.jobs().begin(), resp.jobs().end()}, f.selection);
  return missing_rc;
}

// `get jobs [ID...]`, once.
int GetJobsOnce(Context& c, const Flags& f) {
  std::vector<v1::Job> jobs;
  const int rc = FetchJobs(c, f, jobs);
  if (rc != kTaken && rc != kSomeMissing) return rc;
  if (synergy::cli::IsStructuredOutput(f.output)) {
    v1::ListJobsResponse selected;
    for (const v1::Job& j : jobs) *selected.add_jobs() = j;
    std::cout << synergy::cli::Structured(selected, f.output);
  } else if (f.output == "name") {
    for (const v1::Job& j : jobs) std::cout << synergy::service::EscapeForDisplay(j.id()) << "\n";
  } else {
    std::cout << synergy::cli::JobsTable(jobs, f.output == "wide", NowUnixMs());
  }
  return rc == kTaken ? 0 : 1;
}

// `get jobs -w` as kubectl shows it: the table's header once, then a row
// for each job that is new or whose line changed other than by the clock
// (JobRowSignature), under the time it was read; --full: every listing
// whole, as squeue --iterate.
int WatchJobChanges(Context& c, const Flags& f) {
  std::map<std::string, std::string> shown;  // id -> signature last shown
  for (bool first = true;; first = false) {
    std::vector<v1::Job> jobs;
    if (const int rc = FetchJobs(c, f, jobs); rc != kTaken) return rc == kSomeMissing ? 1 : rc;
    std::vector<v1::Job> changed;
    for (const v1::Job& j : jobs) {
      std::string signature = synergy::cli::JobRowSignature(j);
      auto [it, added] = shown.emplace(j.id(), signature);
      if (!added && it->second == signature) continue;
      it->second = std::move(signature);
      changed.push_back(j);
    }
    if (first || !changed.empty()) {
      const std::string table = synergy::cli::JobsTable(changed, f.output == "wide", NowUnixMs());
      std::cout << (first ? table : table.substr(table.find('\n') + 1));
      std::cout.flush();
    }
    std::this_thread::sleep_for(std::chrono::seconds(f.watch_s));
  }
}

// `get nodes`, once.
int GetNodesOnce(Context& c, const Flags& f) {
  v1::ListNodesResponse resp;
  auto ctx = c.Call(false);
  grpc::Status st = c.stub->ListNodes(ctx.get(), v1::ListNodesRequest{}, &resp);
  if (!st.ok()) return Refused(c, st);
  if (synergy::cli::IsStructuredOutput(f.output)) {
    std::cout << synergy::cli::Structured(resp, f.output);
  } else if (f.output == "name") {
    for (const v1::Node& n : resp.nodes()) std::cout << synergy::service::EscapeForDisplay(n.name()) << "\n";
  } else {
    std::cout << synergy::cli::NodesTable({resp.nodes().begin(), resp.nodes().end()}, f.output == "wide", NowUnixMs());
  }
  return 0;
}

int Get(Context& c, const Flags& f) {
  const auto& args = f.args;
  if (args.size() < 2) return Usage("get needs jobs or nodes");
  const bool of_jobs = args[1] == "jobs" || args[1] == "job";
  const bool of_nodes = args[1] == "nodes" || args[1] == "node";
  if (!of_jobs && !of_nodes) return Usage("get: '" + args[1] + "' is not jobs or nodes");
  if (of_nodes && args.size() != 2) return Usage("get nodes takes no names");
  auto once = [&] { return of_jobs ? GetJobsOnce(c, f) : GetNodesOnce(c, f); };
  if (f.watch_s == 0) return once();
  if (of_jobs && !f.full && (f.output.empty() || f.output == "wide")) return WatchJobChanges(c, f);
  // Like squeue --iterate: the listing again every interval, each under
  // the time it was read, until interrupted or synergyd refuses.
  for (;;) {
    std::cout << "--- " << synergy::service::FormatRfc3339Utc(NowUnixMs()) << "\n";
    if (const int rc = once(); rc != 0) return rc;
    std::cout.flush();
    std::this_thread::sleep_for(std::chrono::seconds(f.watch_s));
  }
}

// The jobs submitted since --since (all without it) that --state, --user
// and --tenant pick, retired ones included, in id order; kTaken or the
// exit code.
int FetchHistory(Context& c, const Flags& f, std::vector<v1::Job>& jobs) {
  int64_t since_ms = 0;
  if (!f.since.empty()) {
    auto parsed = synergy::cli::ParseSince(f.since, NowUnixMs());
    if (!parsed.ok()) return Usage(std::string(parsed.status().message()));
    since_ms = *parsed;
  }
  // Filtered in synergyd, retired jobs included: the history table
  // holds what retain_ended_jobs moved out of the job table.
  v1::ListJobsRequest req;
  for (v1::JobState s : f.selection.states) req.add_states(s);
  req.set_owner(f.selection.user);
  req.set_tenant(f.selection.tenant);
  req.set_submitted_since_unix_ms(std::max<int64_t>(0, since_ms));
  req.set_include_retired(true);
  std::vector<v1::Job> listed;
  if (grpc::Status st = synergy::cli::ListAllJobs(ListCallOf(c), req, f.limit, listed); !st.ok()) return Refused(c, st);
  jobs = synergy::cli::JobsSince(std::move(listed), since_ms);
  return kTaken;
}

// `usage --by user|tenant`: sreport's question, per user or tenant.
int UsageCommand(Context& c, const Flags& f) {
  if (f.args.size() != 1) return Usage("usage takes flags only: --since, --by user|tenant, --user, --tenant, -o csv|json");
  if (!f.output.empty() && f.output != "csv" && f.output != "json") return Usage("usage: -o is csv or json");
  std::vector<v1::Job> jobs;
  if (const int rc = FetchHistory(c, f, jobs); rc != kTaken) return rc;
  const std::vector<synergy::cli::UsageRow> rows = synergy::cli::SumUsage(jobs, f.by);
  std::cout << (f.output == "csv"    ? synergy::cli::UsageCsv(rows, f.by)
                : f.output == "json" ? synergy::cli::UsageJson(rows, f.by)
                                     : synergy::cli::UsageTable(rows, f.by));
  return 0;
}

int History(Context& c, const Flags& f) {
  if (f.args.size() != 1) return Usage("history takes flags only: --since, --state, --user, --tenant, --limit, -o json|csv|trace");
  if (f.output == "wide" || f.output == "name" || f.output == "yaml") return Usage("history: -o is json, csv or trace");
  std::vector<v1::Job> jobs;
  if (const int rc = FetchHistory(c, f, jobs); rc != kTaken) return rc;
  if (f.output == "trace") {
    const synergy::cli::HistoryTraceOut trace = synergy::cli::HistoryTrace(jobs);
    std::cout << trace.trace;
    std::cerr << "history: " << trace.written << " succeeded jobs as a trace (synergy-sim run --trace FILE); skipped "
              << trace.not_succeeded << " that did not succeed, " << trace.without_model_or_iterations
              << " without a model or an iteration count\n";
    return 0;
  }
  std::cout << (f.output == "csv"    ? synergy::cli::HistoryCsv(jobs)
                : f.output == "json" ? synergy::cli::HistoryJson(jobs)
                                     : synergy::cli::HistoryTable(jobs, NowUnixMs()));
  return 0;
}

int Describe(Context& c, const Flags& f) {
  const auto& args = f.args;
  if (args.size() == 3 && args[1] == "node") {
    v1::ListNodesResponse resp;
    auto ctx = c.Call(false);
    grpc::Status st = c.stub->ListNodes(ctx.get(), v1::ListNodesRequest{}, &resp);
    if (!st.ok()) return Refused(c, st);
    for (const v1::Node& n : resp.nodes()) {
      if (n.name() != args[2]) continue;
      std::cout << (synergy::cli::IsStructuredOutput(f.output) ? synergy::cli::Structured(n, f.output)
                                                               : synergy::cli::DescribeNode(n, NowUnixMs()));
      return 0;
    }
    std::cerr << "synergyctl: node " << synergy::service::QuoteForMessage(args[2]) << " is not known to synergyd\n";
    return 1;
  }
  if (args.size() != 3 || args[1] != "job") return Usage("describe needs: job ID, or node NAME");
  v1::GetJobRequest req;
  req.set_job_id(args[2]);
  v1::Job job;
  auto ctx = c.Call(false);
  grpc::Status st = c.stub->GetJob(ctx.get(), req, &job);
  if (!st.ok()) return Refused(c, st);
  std::cout << (synergy::cli::IsStructuredOutput(f.output) ? synergy::cli::Structured(job, f.output)
                                                           : synergy::cli::DescribeJob(job, NowUnixMs()));
  return 0;
}

int ClusterCommand(Context& c, const Flags& f) {
  if (f.args.size() != 1) return Usage("cluster takes no arguments");
  v1::ClusterState resp;
  auto ctx = c.Call(false);
  grpc::Status st = c.stub->GetClusterState(ctx.get(), v1::ClusterStateRequest{}, &resp);
  if (!st.ok()) return Refused(c, st);
  std::cout << (synergy::cli::IsStructuredOutput(f.output) ? synergy::cli::Structured(resp, f.output)
                                                           : synergy::cli::ClusterSummary(resp));
  return 0;
}

int Logs(Context& c, const Flags& f) {
  if (f.args.size() != 2) return Usage("logs needs a job id");
  synergy::cli::LogsOptions logs = f.logs;
  logs.job_id = f.args[1];
  auto fetch = [&](const v1::JobLogsRequest& req, v1::JobLogs* resp) {
    auto ctx = c.Call(false);
    return c.stub->GetJobLogs(ctx.get(), req, resp);
  };
  const grpc::Status st = synergy::cli::ShowLogs(logs, fetch, std::cout, std::cerr,
                                                 [] { std::this_thread::sleep_for(std::chrono::seconds(1)); });
  return st.ok() ? 0 : Refused(c, st);
}

// `ids` with each array's id replaced by its jobs (a verb given an array's
// id acts on all of them, as scancel does); rc set where synergyd refused.
std::vector<std::string> WithArraysExpanded(Context& c, const std::vector<std::string>& ids, int& rc) {
  std::vector<std::string> out;
  for (const std::string& id : ids) {
    std::vector<v1::Job> of_array;
    if (grpc::Status st = ArrayJobs(c, id, of_array); !st.ok()) {
      rc = Refused(c, st);
      return {};
    }
    if (of_array.empty()) out.push_back(id);
    for (const v1::Job& j : of_array) out.push_back(j.id());
  }
  return out;
}

// The jobs a verb acts on: the ids named (an array's id: its jobs), or
// those --user, --tenant and --state pick (asked of synergyd); more than
// one picked needs --yes. Empty with an exit code where it cannot go on.
std::vector<std::string> JobsToActOn(Context& c, const Flags& f, int& rc) {
  const std::string& verb = f.args[0];
  std::vector<std::string> ids(f.args.begin() + 1, f.args.end());
  const bool selector = !f.selection.user.empty() || !f.selection.tenant.empty() || !f.selection.states.empty();
  rc = kTaken;
  if (!ids.empty() && selector) rc = Usage(verb + ": job ids or --user/--tenant/--state, not both");
  if (ids.empty() && !selector) rc = Usage(verb + " needs job ids, or --user/--tenant/--state (with --yes for more than one)");
  if (rc != kTaken) return ids;
  if (!selector) {
    // An array's id picks all its jobs: like a selector, more than named
    // needs --yes.
    std::vector<std::string> expanded = WithArraysExpanded(c, ids, rc);
    if (rc == kTaken && expanded.size() > ids.size() && !f.yes) {
      std::cerr << "synergyctl: " << synergy::cli::ConfirmSelection(verb, expanded, false) << "\n";
      rc = 2;
      return {};
    }
    return expanded;
  }
  v1::ListJobsRequest req;
  for (v1::JobState s : f.selection.states) req.add_states(s);
  req.set_owner(f.selection.user);
  req.set_tenant(f.selection.tenant);
  std::vector<v1::Job> listed;
  if (grpc::Status st = synergy::cli::ListAllJobs(ListCallOf(c), req, 0, listed); !st.ok()) {
    rc = Refused(c, st);
    return {};
  }
  for (const v1::Job& j : listed) ids.push_back(j.id());
  if (ids.empty()) {
    std::cerr << "synergyctl: " << verb << ": no job matches\n";
    rc = 0;
  } else if (const std::string refusal = synergy::cli::ConfirmSelection(verb, ids, f.yes); !refusal.empty()) {
    std::cerr << "synergyctl: " << refusal << "\n";
    rc = 2;
    ids.clear();
  }
  return ids;
}

// cancel, hold, release, requeue: on each job named or selected.
int JobAction(Context& c, const Flags& f) {
  const std::string& cmd = f.args[0];
  int rc = kTaken;
  const std::vector<std::string> ids = JobsToActOn(c, f, rc);
  if (rc != kTaken) return rc;
  auto act = [&](const std::string& id, v1::Job* after) {
    auto ctx = c.Call(true);
    if (cmd == "cancel") {
      v1::CancelJobRequest req;
      req.set_job_id(id);
      v1::CancelJobResponse resp;
      const grpc::Status st = c.stub->CancelJob(ctx.get(), req, &resp);
      *after = resp.job();
      return st;
    }
    v1::JobActionRequest req;
    req.set_job_id(id);
    v1::JobActionResponse resp;
    const grpc::Status st = cmd == "hold"      ? c.stub->HoldJob(ctx.get(), req, &resp)
                            : cmd == "release" ? c.stub->ReleaseJob(ctx.get(), req, &resp)
                                               : c.stub->RequeueJob(ctx.get(), req, &resp);
    *after = resp.job();
    return st;
  };
  auto done = [&](const v1::Job& job) -> std::string {
    return cmd == "cancel" ? synergy::cli::StateName(job.state())
           : cmd == "hold" ? "held"
           : cmd == "release" ? "released"
                              : "requeued";
  };
  return synergy::cli::ActOnJobs(cmd, ids, act, done, std::cout, std::cerr);
}

int Update(Context& c, const Flags& f) {
  if (f.args.size() != 2) return Usage("update needs a job id");
  if (!f.priority) return Usage("update needs what to change: --priority N");
  v1::UpdateJobRequest req;
  req.set_job_id(f.args[1]);
  req.set_priority(*f.priority);
  v1::JobActionResponse resp;
  auto ctx = c.Call(true);
  grpc::Status st = c.stub->UpdateJob(ctx.get(), req, &resp);
  if (!st.ok()) return Refused(c, st);
  std::cout << synergy::service::EscapeForDisplay(resp.job().id()) << " priority " << resp.job().spec().priority()
            << "\n";
  return 0;
}

// drain, undrain.
int Drain(Context& c, const Flags& f) {
  const std::string& cmd = f.args[0];
  if (f.args.size() != 2) return Usage(cmd + " needs a node name");
  v1::DrainNodeRequest req;
  req.set_name(f.args[1]);
  req.set_reason(f.reason);
  v1::DrainNodeResponse resp;
  auto ctx = c.Call(true);
  grpc::Status st =
      cmd == "drain" ? c.stub->DrainNode(ctx.get(), req, &resp) : c.stub->UndrainNode(ctx.get(), req, &resp);
  if (!st.ok()) return Refused(c, st);
  std::cout << synergy::service::EscapeForDisplay(resp.node().name()) << (resp.node().drained() ? " drained" : " undrained")
            << "\n";
  return 0;
}

// With several addresses (a leader and its standbys, docs/deploy.md), the
// channel to the first that answers as the leader: a standby answers
// UNAVAILABLE, a dead host nothing within 3 s. The probe is the cheapest
// call (a job id that cannot exist: refused before any state is read); any
// other answer is the leader's. With none, the last tried (the verb's own
// call then says why).
std::shared_ptr<grpc::Channel> FindLeader(Context& c, synergy::service::LeaderChannels& channels) {
  for (size_t tried = 1; channels.size() > 1; ++tried) {
    auto ctx = c.Call(false);
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
    v1::GetJobRequest probe;
    v1::Job ignored;
    const grpc::Status st = v1::SchedulerService::NewStub(channels.current())->GetJob(ctx.get(), probe, &ignored);
    const bool leads = st.error_code() != grpc::StatusCode::UNAVAILABLE &&
                       st.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED;
    if (leads || tried == channels.size()) break;
    channels.Next();
  }
  return channels.current();
}

// The channel to synergyd, with the credential checked first; kTaken, or
// the exit code.
int Connect(Context& c) {
  if (auto st = synergy::service::ValidateCredentialText(c.token, "--token"); !st.ok()) {
    std::cerr << "synergyctl: " << st.message() << "\n";
    return 2;
  }
  grpc::ChannelArguments channel_args;
  // Replies may list many jobs; requests stay small.
  channel_args.SetMaxReceiveMessageSize(64 << 20);
  auto channels =
      synergy::service::LeaderChannels::Open(c.server, "--server", c.security, !c.token.empty(), channel_args);
  if (!channels.ok()) {
    std::cerr << "synergyctl: " << channels.status().message() << "\n";
    return 2;
  }
  c.stub = v1::SchedulerService::NewStub(FindLeader(c, **channels));
  c.target = (*channels)->current_target();
  return kTaken;
}

using Verb = int (*)(Context&, const Flags&);
const std::map<std::string, Verb>& Verbs() {
  static const std::map<std::string, Verb> kVerbs = {
      {"submit", Submit}, {"get", Get}, {"usage", UsageCommand},           {"history", History},   {"describe", Describe},
      {"cancel", JobAction}, {"cluster", ClusterCommand}, {"logs", Logs},    {"hold", JobAction},
      {"release", JobAction}, {"requeue", JobAction},  {"update", Update}, {"drain", Drain},
      {"undrain", Drain}};
  return kVerbs;
}

}  // namespace

int main(int argc, char** argv) {
  // gRPC's own log lines (a failed TLS handshake prints
  // "ssl_transport_security.cc ... certificate verify failed") are not for
  // synergyctl's user: every failure is told once, by its status, and TLS
  // failures are explained (Refused).
  gpr_set_log_function([](gpr_log_func_args*) {});
  Context c;
  c.server = std::getenv("SYNERGY_SERVER") ? std::getenv("SYNERGY_SERVER") : "127.0.0.1:50051";
  c.token = std::getenv("SYNERGY_TOKEN") ? std::getenv("SYNERGY_TOKEN") : "";
  c.security.ca_file = std::getenv("SYNERGY_CA") ? std::getenv("SYNERGY_CA") : "";
  c.security.server_name = std::getenv("SYNERGY_TLS_SERVER_NAME") ? std::getenv("SYNERGY_TLS_SERVER_NAME") : "";
  c.security.plaintext = std::getenv("SYNERGY_PLAINTEXT") && std::string(std::getenv("SYNERGY_PLAINTEXT")) == "1";
  Flags f;
  if (const int rc = ReadFlags(argc, argv, c, f); rc != kTaken) return rc;
  if (const int rc = CheckFlagsFit(f); rc != kTaken) return rc;
  const std::string& cmd = f.args[0];
  if (cmd == "completion") return Completion(f);
  if (cmd == "hash-credential") return HashCredential(f);
  auto verb = Verbs().find(cmd);
  if (verb == Verbs().end()) {
    std::vector<std::string> known = {"completion", "hash-credential"};
    for (const auto& [name, run] : Verbs()) known.push_back(name);
    return Usage("unknown command '" + cmd + "'" + synergy::cli::DidYouMean(cmd, known));
  }
  if (const int rc = Connect(c); rc != kTaken) return rc;
  return verb->second(c, f);
}
