// synergyctl: the operator's command line for synergyd.
//   synergyctl [--server HOST:PORT] [--token T] [--ca FILE] [--server-name NAME] [--plaintext] COMMAND ...
//     submit -f JOB.yaml            submit a job; prints its id
//     get jobs|nodes [-o wide|json] list
//     describe job ID               one job in full, with its events
//     cancel ID                     cancel a job
//     cluster [-o json]             capacity, allocation, jobs by state
//     drain NODE | undrain NODE     stop / resume placing leases on a node
//     hash-credential               SHA-256 of the credential on stdin, for synergyd.yaml
// --server defaults to $SYNERGY_SERVER or 127.0.0.1:50051, --token to
// $SYNERGY_TOKEN, --ca to $SYNERGY_CA (else the system's roots), --plaintext
// to $SYNERGY_PLAINTEXT=1 (loopback only). Exit status: 0 done, 1 refused by
// synergyd (or it is unreachable), 2 bad usage or input.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/tables.h"
#include "service/auth.h"
#include "service/channel.h"
#include "service/credentials.h"
#include "service/escape.h"
#include "service/job_spec.h"
#include "synergy/v1/synergy.grpc.pb.h"
#include "synergy/version.h"

namespace {

using synergy::service::NowUnixMs;
namespace v1 = synergy::v1;

constexpr const char* kUsage =
    "usage: synergyctl [--server HOST:PORT] [--token T] [--ca FILE] [--server-name NAME] [--plaintext] COMMAND\n"
    "  submit -f JOB.yaml\n"
    "  get jobs|nodes [-o wide|json]\n"
    "  describe job ID\n"
    "  cancel ID\n"
    "  cluster [-o json]\n"
    "  drain NODE | undrain NODE\n"
    "  hash-credential < FILE       SHA-256 of a credential, for token_sha256: in synergyd.yaml\n"
    "  --version\n";

int Usage(const std::string& why) {
  std::cerr << "synergyctl: " << why << "\n" << kUsage;
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
  std::string output, file;
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
      if (!value(output)) return Usage("-o needs wide or json");
      if (output != "wide" && output != "json") return Usage("-o: '" + output + "' is not wide or json");
    } else if (a == "-f" || a == "--file") {
      if (!value(file)) return Usage("-f needs a file");
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (a == "--version") {
      std::cout << synergy::VersionLine("synergyctl") << "\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("unknown flag '" + a + "'");
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) return Usage("no command");
  const std::string& cmd = args[0];
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
    v1::SubmitJobRequest req;
    *req.mutable_spec() = *spec;
    v1::SubmitJobResponse resp;
    auto ctx = c.Call(true);
    grpc::Status st = c.stub->SubmitJob(ctx.get(), req, &resp);
    if (!st.ok()) return Refused(st);
    std::cout << synergy::service::EscapeForDisplay(resp.job_id()) << "\n";
    return 0;
  }
  if (cmd == "get") {
    if (args.size() != 2) return Usage("get needs jobs or nodes");
    if (args[1] == "jobs" || args[1] == "job") {
      v1::ListJobsResponse resp;
      auto ctx = c.Call(false);
      grpc::Status st = c.stub->ListJobs(ctx.get(), v1::ListJobsRequest{}, &resp);
      if (!st.ok()) return Refused(st);
      if (output == "json") {
        std::cout << synergy::cli::Json(resp);
      } else {
        std::cout << synergy::cli::JobsTable({resp.jobs().begin(), resp.jobs().end()}, output == "wide", NowUnixMs());
      }
      return 0;
    }
    if (args[1] == "nodes" || args[1] == "node") {
      v1::ListNodesResponse resp;
      auto ctx = c.Call(false);
      grpc::Status st = c.stub->ListNodes(ctx.get(), v1::ListNodesRequest{}, &resp);
      if (!st.ok()) return Refused(st);
      if (output == "json") {
        std::cout << synergy::cli::Json(resp);
      } else {
        std::cout << synergy::cli::NodesTable({resp.nodes().begin(), resp.nodes().end()}, output == "wide", NowUnixMs());
      }
      return 0;
    }
    return Usage("get: '" + args[1] + "' is not jobs or nodes");
  }
  if (cmd == "describe") {
    if (args.size() != 3 || args[1] != "job") return Usage("describe needs: job ID");
    v1::GetJobRequest req;
    req.set_job_id(args[2]);
    v1::Job job;
    auto ctx = c.Call(false);
    grpc::Status st = c.stub->GetJob(ctx.get(), req, &job);
    if (!st.ok()) return Refused(st);
    std::cout << (output == "json" ? synergy::cli::Json(job) : synergy::cli::DescribeJob(job, NowUnixMs()));
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
    std::cout << (output == "json" ? synergy::cli::Json(resp) : synergy::cli::ClusterSummary(resp));
    return 0;
  }
  if (cmd == "drain" || cmd == "undrain") {
    if (args.size() != 2) return Usage(cmd + " needs a node name");
    v1::DrainNodeRequest req;
    req.set_name(args[1]);
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
