// synergyctl: the operator's command line for synergyd.
//   synergyctl [--server HOST:PORT] [--token T] [--ca FILE] [--server-name NAME] [--plaintext] COMMAND ...
// The commands, their help and the bash completion are in cli/commands.cc
// (synergyctl --help, synergyctl COMMAND --help).
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/numbers.h"
#include "cli/commands.h"
#include "cli/history.h"
#include "cli/job_logs.h"
#include "cli/job_pages.h"
#include "cli/job_selection.h"
#include "cli/message_output.h"
#include "cli/tables.h"
#include "service/auth.h"
#include "service/channel.h"
#include "service/credentials.h"
#include "service/escape.h"
#include "service/job_spec.h"
#include "service/request_limits.h"
#include "service/rfc3339.h"
#include "synergy/v1/synergy.grpc.pb.h"
#include "synergy/version.h"

namespace {

using synergy::service::NowUnixMs;
namespace v1 = synergy::v1;

int Usage(const std::string& why) {
  std::cerr << "synergyctl: " << why << "\n" << synergy::cli::Usage();
  return 2;
}

int Refused(const grpc::Status& st) {
  // Whatever synergyd says is shown escaped: a message may quote a value
  // another user chose.
  std::cerr << "synergyctl: " << synergy::service::EscapeForDisplay(st.error_message()) << "\n";
  // The daemon refusing bad input is bad input.
  return st.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? 2 : 1;
}

struct Context {
  std::string server;
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

}  // namespace

int main(int argc, char** argv) {
  Context c;
  c.server = std::getenv("SYNERGY_SERVER") ? std::getenv("SYNERGY_SERVER") : "127.0.0.1:50051";
  c.token = std::getenv("SYNERGY_TOKEN") ? std::getenv("SYNERGY_TOKEN") : "";
  c.security.ca_file = std::getenv("SYNERGY_CA") ? std::getenv("SYNERGY_CA") : "";
  c.security.server_name = std::getenv("SYNERGY_TLS_SERVER_NAME") ? std::getenv("SYNERGY_TLS_SERVER_NAME") : "";
  c.security.plaintext = std::getenv("SYNERGY_PLAINTEXT") && std::string(std::getenv("SYNERGY_PLAINTEXT")) == "1";
  std::vector<std::string> args;
  std::string output, file, states, since, reason, profile_of;
  std::optional<int> priority;
  synergy::cli::LogsOptions logs;
  bool help = false;
  int watch_s = 0, interval_s = 0;
  size_t limit = 0;  // --limit: at most this many jobs listed (0 = all)
  synergy::cli::JobSelection selection;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    if (a == "--server") {
      if (!value(c.server)) return Usage("--server needs HOST:PORT");
    } else if (a == "--token") {
      if (!value(c.token)) return Usage("--token needs a value");
    } else if (a == "--ca") {
      if (!value(c.security.ca_file)) return Usage("--ca needs a PEM file");
    } else if (a == "--server-name") {
      if (!value(c.security.server_name)) return Usage("--server-name needs a name");
    } else if (a == "--plaintext") {
      c.security.plaintext = true;
    } else if (a == "-o" || a == "--output") {
      if (!value(output)) return Usage("-o needs wide, json, yaml or name");
      if (output != "wide" && !synergy::cli::IsStructuredOutput(output) && output != "name" && output != "csv") {
        return Usage("-o: " + synergy::service::QuoteForMessage(output) + " is not wide, json, yaml, name or csv");
      }
    } else if (a == "--since") {
      if (!value(since)) return Usage("--since needs a duration (2h) or a time (2026-12-04T09:00:00Z)");
    } else if (a == "--state") {
      if (!value(states)) return Usage("--state needs states, e.g. running,queued");
      auto parsed = synergy::cli::ParseStates(states);
      if (!parsed.ok()) return Usage(std::string(parsed.status().message()));
      selection.states = *parsed;
    } else if (a == "--limit") {
      std::string v;
      int n = 0;
      if (!value(v) || !absl::SimpleAtoi(v, &n) || n < 1 || n > 10'000'000) {
        return Usage("--limit needs a number of jobs from 1 to 10000000");
      }
      limit = static_cast<size_t>(n);
    } else if (a == "--user") {
      if (!value(selection.user)) return Usage("--user needs a user name");
    } else if (a == "--tenant") {
      if (!value(selection.tenant)) return Usage("--tenant needs a tenant");
    } else if (a == "-w" || a == "--watch") {
      watch_s = 2;
    } else if (a == "--interval") {
      std::string v;
      if (!value(v) || !absl::SimpleAtoi(v, &interval_s) || interval_s < 1 || interval_s > 3600) {
        return Usage("--interval needs seconds from 1 to 3600");
      }
    } else if (a == "--sort-by") {
      if (!value(selection.sort_by)) return Usage("--sort-by needs a key");
      if (auto st = synergy::cli::CheckSortKey(selection.sort_by); !st.ok()) return Usage(std::string(st.message()));
    } else if (a == "--priority") {
      std::string v;
      int p = 0;
      if (!value(v) || !absl::SimpleAtoi(v, &p) || p < 0 || p > synergy::service::kMaxPriorityClass) {
        return Usage("--priority needs a priority class from 0 to " +
                     std::to_string(synergy::service::kMaxPriorityClass));
      }
      priority = p;
    } else if (a == "--profile-of") {
      if (!value(profile_of)) return Usage("--profile-of needs a job id");
    } else if (a == "--reason") {
      if (!value(reason)) return Usage("--reason needs a text");
    } else if (a == "--follow" || (a == "-f" && !args.empty() && args[0] == "logs")) {
      logs.follow = true;
    } else if (a == "--lease") {
      std::string v;
      if (!value(v) || !absl::SimpleAtoi(v, &logs.epoch) || logs.epoch < 1) return Usage("--lease needs a lease number (1 or more)");
    } else if (a == "--rank") {
      std::string v;
      if (!value(v) || !absl::SimpleAtoi(v, &logs.rank) || logs.rank < 0) return Usage("--rank needs a rank (0 or more)");
    } else if (a == "--stderr") {
      logs.stderr_stream = true;
    } else if (a == "-f" || a == "--file") {
      if (!value(file)) return Usage("-f needs a file");
    } else if (a == "-h" || a == "--help") {
      help = true;
    } else if (a == "--version") {
      std::cout << synergy::VersionLine("synergyctl") << "\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown flag '" + a + "'");
    } else {
      args.push_back(a);
    }
  }
  if (interval_s > 0) {
    if (watch_s == 0) return Usage("--interval goes with -w");
    watch_s = interval_s;
  }
  if (watch_s > 0 && (args.empty() || args[0] != "get")) return Usage("-w is for get only");
  if (help) {
    const std::string one = args.empty() ? "" : synergy::cli::HelpFor(args[0]);
    std::cout << (one.empty() ? synergy::cli::Usage() : one);
    return 0;
  }
  if (args.empty()) return Usage("no command");
  const std::string& cmd = args[0];
  if (priority && cmd != "update") return Usage("--priority is for update only");
  if (!reason.empty() && cmd != "drain") return Usage("--reason is for drain only");
  if (!profile_of.empty() && cmd != "submit") return Usage("--profile-of is for submit only");
  if ((logs.follow || logs.epoch != 0 || logs.rank != 0 || logs.stderr_stream) && cmd != "logs") {
    return Usage("--follow, --lease, --rank and --stderr are for logs only");
  }
  if (cmd == "completion") {
    const std::string script = synergy::cli::CompletionScript(args.size() == 2 ? args[1] : "");
    if (script.empty()) return Usage("completion needs a shell: bash");
    std::cout << script;
    return 0;
  }
  if (cmd == "hash-credential") {
    if (args.size() != 1) return Usage("hash-credential reads the credential from stdin");
    std::string credential;
    std::getline(std::cin, credential);
    if (auto st = synergy::service::ValidateCredentialText(credential, "credential"); !st.ok() || credential.empty()) {
      std::cerr << "synergyctl: " << (credential.empty() ? "credential: empty" : st.message()) << "\n";
      return 2;
    }
    std::cout << synergy::service::Sha256Hex(credential) << "\n";
    return 0;
  }
  if (auto st = synergy::service::ValidateCredentialText(c.token, "--token"); !st.ok()) {
    std::cerr << "synergyctl: " << st.message() << "\n";
    return 2;
  }
  grpc::ChannelArguments channel_args;
  // Replies may list many jobs; requests stay small.
  channel_args.SetMaxReceiveMessageSize(64 << 20);
  auto channel = synergy::service::OpenChannel(c.server, c.security, !c.token.empty(), channel_args);
  if (!channel.ok()) {
    std::cerr << "synergyctl: " << channel.status().message() << "\n";
    return 2;
  }
  c.stub = v1::SchedulerService::NewStub(*channel);

  if (cmd == "submit") {
    if (file.empty() || args.size() != 1) return Usage("submit needs -f JOB.yaml");
    std::ifstream in(file);
    if (!in) return Usage(file + ": cannot open");
    std::stringstream ss;
    ss << in.rdbuf();
    auto spec = synergy::service::ParseJobSpecYaml(ss.str(), file);
    if (!spec.ok()) {
      std::cerr << "synergyctl: " << spec.status().message() << "\n";
      return 2;
    }
    if (!profile_of.empty()) {
      if (spec->profile_points_size() > 0) return Usage(file + ": profile_points: given, and --profile-of too");
      v1::GetJobRequest get;
      get.set_job_id(profile_of);
      v1::Job measured;
      auto ctx = c.Call(false);
      if (grpc::Status st = c.stub->GetJob(ctx.get(), get, &measured); !st.ok()) return Refused(st);
      if (measured.measured_profile().points_size() == 0) {
        std::cerr << "synergyctl: --profile-of: job " << synergy::service::EscapeForDisplay(profile_of)
                  << " has no measured profile\n";
        return 1;
      }
      // A profile's points are the whole job's, on its GPUs.
      if (measured.spec().gpus() != spec->gpus()) {
        std::cerr << "synergyctl: --profile-of: job " << synergy::service::EscapeForDisplay(profile_of)
                  << " was measured on " << measured.spec().gpus() << " GPUs, " << file << " asks for "
                  << spec->gpus() << "\n";
        return 2;
      }
      *spec->mutable_profile_points() = measured.measured_profile().points();
      spec->set_profile_gpu_type(measured.measured_profile().gpu_type());
      spec->set_profile(false);
    }
    v1::SubmitJobRequest req;
    *req.mutable_spec() = *spec;
    v1::SubmitJobResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = c.stub->SubmitJob(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.job_id()) << "\n";
    return 0;
  }
  if (output == "csv" && cmd != "history") return Usage("-o csv is for history only");
  // One ListJobs call (a page), for ListAllJobs.
  const synergy::cli::ListCall list_call = [&](const v1::ListJobsRequest& req, v1::ListJobsResponse* page) {
    auto ctx = c.Call(false);
    return c.stub->ListJobs(ctx.get(), req, page);
  };
  if (cmd == "get") {
    if (args.size() < 2) return Usage("get needs jobs or nodes");
    const bool of_jobs = args[1] == "jobs" || args[1] == "job";
    const bool of_nodes = args[1] == "nodes" || args[1] == "node";
    if (!of_jobs && !of_nodes) return Usage("get: '" + args[1] + "' is not jobs or nodes");
    if (of_nodes && args.size() != 2) return Usage("get nodes takes no names");
    auto get_once = [&]() -> int {
      if (of_jobs) {
        // Named jobs one by one (NOT_FOUND names the id); else the list,
        // filtered by state in synergyd.
        v1::ListJobsResponse resp;
        if (args.size() > 2) {
          for (size_t i = 2; i < args.size(); ++i) {
            v1::GetJobRequest req;
            req.set_job_id(args[i]);
            auto ctx = c.Call(false);
            grpc::Status st = c.stub->GetJob(ctx.get(), req, resp.add_jobs());
            if (!st.ok()) return Refused(st);
          }
        } else {
          v1::ListJobsRequest req;
          for (v1::JobState s : selection.states) req.add_states(s);
          req.set_owner(selection.user);
          req.set_tenant(selection.tenant);
          std::vector<v1::Job> listed;
          if (grpc::Status st = synergy::cli::ListAllJobs(list_call, req, limit, listed); !st.ok()) return Refused(st);
          for (v1::Job& j : listed) *resp.add_jobs() = std::move(j);
        }
        const std::vector<v1::Job> jobs = synergy::cli::SelectJobs({resp.jobs().begin(), resp.jobs().end()}, selection);
        if (synergy::cli::IsStructuredOutput(output)) {
          v1::ListJobsResponse selected;
          for (const v1::Job& j : jobs) *selected.add_jobs() = j;
          std::cout << synergy::cli::Structured(selected, output);
        } else if (output == "name") {
          for (const v1::Job& j : jobs) std::cout << synergy::service::EscapeForDisplay(j.id()) << "\n";
        } else {
          std::cout << synergy::cli::JobsTable(jobs, output == "wide", NowUnixMs());
        }
        return 0;
      }
      {  // nodes
        v1::ListNodesResponse resp;
        auto ctx = c.Call(false);
        grpc::Status st = c.stub->ListNodes(ctx.get(), v1::ListNodesRequest{}, &resp);
        if (!st.ok()) return Refused(st);
        if (synergy::cli::IsStructuredOutput(output)) {
          std::cout << synergy::cli::Structured(resp, output);
        } else if (output == "name") {
          for (const v1::Node& n : resp.nodes()) std::cout << synergy::service::EscapeForDisplay(n.name()) << "\n";
        } else {
          std::cout << synergy::cli::NodesTable({resp.nodes().begin(), resp.nodes().end()}, output == "wide", NowUnixMs());
        }
        return 0;
      }
    };
    if (watch_s == 0) return get_once();
    // Like squeue --iterate: the listing again every interval, each under
    // the time it was read, until interrupted or synergyd refuses.
    for (;;) {
      std::cout << "--- " << synergy::service::FormatRfc3339Utc(NowUnixMs()) << "\n";
      if (const int rc = get_once(); rc != 0) return rc;
      std::cout.flush();
      std::this_thread::sleep_for(std::chrono::seconds(watch_s));
    }
  }
  if (cmd == "history") {
    if (args.size() != 1) return Usage("history takes flags only: --since, --state, --user, --tenant, --limit, -o json|csv");
    if (output == "wide" || output == "name" || output == "yaml") return Usage("history: -o is json or csv");
    int64_t since_ms = 0;
    if (!since.empty()) {
      auto parsed = synergy::cli::ParseSince(since, NowUnixMs());
      if (!parsed.ok()) return Usage(std::string(parsed.status().message()));
      since_ms = *parsed;
    }
    // Filtered in synergyd, retired jobs included: the history table
    // holds what retain_ended_jobs moved out of the job table.
    v1::ListJobsRequest req;
    for (v1::JobState s : selection.states) req.add_states(s);
    req.set_owner(selection.user);
    req.set_tenant(selection.tenant);
    req.set_submitted_since_unix_ms(std::max<int64_t>(0, since_ms));
    req.set_include_retired(true);
    std::vector<v1::Job> listed;
    if (grpc::Status st = synergy::cli::ListAllJobs(list_call, req, limit, listed); !st.ok()) return Refused(st);
    const std::vector<v1::Job> jobs = synergy::cli::JobsSince(std::move(listed), since_ms);
    std::cout << (output == "csv"    ? synergy::cli::HistoryCsv(jobs)
                  : output == "json" ? synergy::cli::HistoryJson(jobs)
                                     : synergy::cli::HistoryTable(jobs, NowUnixMs()));
    return 0;
  }
  if (cmd == "describe" && args.size() == 3 && args[1] == "node") {
    v1::ListNodesResponse resp;
    auto ctx = c.Call(false);
    grpc::Status st = c.stub->ListNodes(ctx.get(), v1::ListNodesRequest{}, &resp);
    if (!st.ok()) return Refused(st);
    for (const v1::Node& n : resp.nodes()) {
      if (n.name() != args[2]) continue;
      std::cout << (synergy::cli::IsStructuredOutput(output) ? synergy::cli::Structured(n, output)
                                                             : synergy::cli::DescribeNode(n, NowUnixMs()));
      return 0;
    }
    std::cerr << "synergyctl: node " << synergy::service::QuoteForMessage(args[2]) << " is not known to synergyd\n";
    return 1;
  }
  if (cmd == "describe") {
    if (args.size() != 3 || args[1] != "job") return Usage("describe needs: job ID, or node NAME");
    v1::GetJobRequest req;
    req.set_job_id(args[2]);
    v1::Job job;
    auto ctx = c.Call(false);
    grpc::Status st = c.stub->GetJob(ctx.get(), req, &job);
    if (!st.ok()) return Refused(st);
    std::cout << (synergy::cli::IsStructuredOutput(output) ? synergy::cli::Structured(job, output)
                                                           : synergy::cli::DescribeJob(job, NowUnixMs()));
    return 0;
  }
  if (cmd == "cancel") {
    if (args.size() != 2) return Usage("cancel needs a job id");
    v1::CancelJobRequest req;
    req.set_job_id(args[1]);
    v1::CancelJobResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = c.stub->CancelJob(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.job().id()) << " " << synergy::cli::StateName(resp.job().state()) << "\n";
    return 0;
  }
  if (cmd == "cluster") {
    if (args.size() != 1) return Usage("cluster takes no arguments");
    v1::ClusterState resp;
    auto ctx = c.Call(false);
    grpc::Status st = c.stub->GetClusterState(ctx.get(), v1::ClusterStateRequest{}, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << (synergy::cli::IsStructuredOutput(output) ? synergy::cli::Structured(resp, output)
                                                           : synergy::cli::ClusterSummary(resp));
    return 0;
  }
  if (cmd == "logs") {
    if (args.size() != 2) return Usage("logs needs a job id");
    logs.job_id = args[1];
    auto fetch = [&](const v1::JobLogsRequest& req, v1::JobLogs* resp) {
      auto ctx = c.Call(false);
      return c.stub->GetJobLogs(ctx.get(), req, resp);
    };
    const grpc::Status st = synergy::cli::ShowLogs(logs, fetch, std::cout, std::cerr,
                                                   [] { std::this_thread::sleep_for(std::chrono::seconds(1)); });
    return st.ok() ? 0 : Refused(st);
  }
  if (cmd == "hold" || cmd == "release" || cmd == "requeue") {
    if (args.size() != 2) return Usage(cmd + " needs a job id");
    v1::JobActionRequest req;
    req.set_job_id(args[1]);
    v1::JobActionResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = cmd == "hold"      ? c.stub->HoldJob(ctx.get(), req, &resp)
                      : cmd == "release" ? c.stub->ReleaseJob(ctx.get(), req, &resp)
                                         : c.stub->RequeueJob(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.job().id()) << " "
              << (cmd == "hold" ? "held" : cmd == "release" ? "released" : "requeued") << "\n";
    return 0;
  }
  if (cmd == "update") {
    if (args.size() != 2) return Usage("update needs a job id");
    if (!priority) return Usage("update needs what to change: --priority N");
    v1::UpdateJobRequest req;
    req.set_job_id(args[1]);
    req.set_priority(*priority);
    v1::JobActionResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = c.stub->UpdateJob(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.job().id()) << " priority "
              << resp.job().spec().priority() << "\n";
    return 0;
  }
  if (cmd == "drain" || cmd == "undrain") {
    if (args.size() != 2) return Usage(cmd + " needs a node name");
    v1::DrainNodeRequest req;
    req.set_name(args[1]);
    req.set_reason(reason);
    v1::DrainNodeResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = cmd == "drain" ? c.stub->DrainNode(ctx.get(), req, &resp)
                                     : c.stub->UndrainNode(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.node().name()) << (resp.node().drained() ? " drained" : " undrained") << "\n";
    return 0;
  }
  return Usage("unknown command '" + cmd + "'");
}
