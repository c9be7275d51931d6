// A small training-like job speaking the agent protocol (AgentService)
// directly, for the integration tests: it registers under its lease,
// resumes from its checkpoint, "trains" one iteration every --iteration-ms,
// reports progress, and when its lease ends checkpoints (write, then
// rename, a file per checkpoint so that the confirmed one is never
// overwritten by one the daemon has not confirmed) and exits 0. Only rank 0
// writes and confirms checkpoints. Calls that find synergyd unavailable
// (it restarts) are retried for up to a minute. Its "model" is a running sum over the iterations, so
// a resumed run that skipped or repeated an iteration ends with a different
// value than one that ran straight through.
//   agent_job [--iteration-ms 20] [--checkpoint-dir DIR] [--crash-at K]
// --crash-at K exits with status 3 at iteration K, once (a marker file in
// the checkpoint directory remembers it crashed).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "synergy/v1/synergy.grpc.pb.h"

namespace v1 = synergy::v1;

namespace {

std::string Env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// The model: sum of (i * 7 + 3) mod 1000 over the iterations done.
int64_t Step(int64_t state, int64_t i) { return state + (i * 7 + 3) % 1000; }

// Calls `rpc` until it returns anything but UNAVAILABLE, for up to 60 s.
template <typename F>
grpc::Status Retrying(F rpc) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (true) {
    grpc::Status st = rpc();
    if (st.error_code() != grpc::StatusCode::UNAVAILABLE || std::chrono::steady_clock::now() > deadline) {
      return st;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

int main(int argc, char** argv) {
  int iteration_ms = 20;
  int64_t crash_at = -1;
  std::string dir = ".";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iteration-ms" && i + 1 < argc) iteration_ms = std::atoi(argv[++i]);
    else if (a == "--crash-at" && i + 1 < argc) crash_at = std::atoll(argv[++i]);
    else if (a == "--checkpoint-dir" && i + 1 < argc) dir = argv[++i];
    else {
      std::cerr << "agent_job: unknown argument " << a << "\n";
      return 2;
    }
  }
  const std::string job = Env("SYNERGY_JOB_ID");
  const int64_t epoch = std::atoll(Env("SYNERGY_LEASE_EPOCH", "0").c_str());
  const int rank = std::atoi(Env("SYNERGY_RANK", "0").c_str());
  auto stub = v1::AgentService::NewStub(
      grpc::CreateChannel(Env("SYNERGY_SCHEDULER", "127.0.0.1:50051"), grpc::InsecureChannelCredentials()));
  std::filesystem::create_directories(dir);
  const std::string ckpt = dir + "/" + job + ".ckpt";  // prefix; a file per iteration

  v1::AgentHello hello;
  hello.set_job_id(job);
  hello.set_epoch(epoch);
  hello.set_rank(rank);
  v1::AgentWelcome welcome;
  {
    grpc::Status st = Retrying([&] {
      grpc::ClientContext ctx;
      return stub->RegisterAgent(&ctx, hello, &welcome);
    });
    if (!st.ok()) {
      std::cerr << "agent_job: register refused: " << st.error_message() << "\n";
      return 4;
    }
  }
  int64_t iteration = welcome.resume_iteration();
  int64_t state = 0;
  if (iteration > 0) {
    std::ifstream in(welcome.checkpoint_path());
    int64_t saved_iteration = -1;
    in >> saved_iteration >> state;
    if (saved_iteration != iteration) {
      std::cerr << "agent_job: checkpoint " << welcome.checkpoint_path() << " holds iteration " << saved_iteration
                << ", expected " << iteration << "\n";
      return 5;
    }
  }
  std::cout << "agent_job " << job << " lease " << epoch << ": resuming at iteration " << iteration << " of "
            << welcome.total_iterations() << " on " << welcome.cpu_ids_size() << " cpus" << std::endl;

  auto checkpoint = [&](bool finished) {
    if (rank != 0) return true;  // rank 0 speaks for the job
    const std::string path = ckpt + "." + std::to_string(iteration);
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << iteration << " " << state << "\n";
      out.flush();
      if (!out) return false;
    }
    std::filesystem::rename(tmp, path);
    v1::CheckpointDone done;
    done.set_job_id(job);
    done.set_epoch(epoch);
    done.set_iteration(iteration);
    done.set_path(path);
    done.set_finished(finished);
    v1::CheckpointAck ack;
    grpc::Status st = Retrying([&] {
      grpc::ClientContext ctx;
      return stub->ConfirmCheckpoint(&ctx, done, &ack);
    });
    if (!st.ok()) std::cerr << "agent_job: checkpoint refused: " << st.error_message() << "\n";
    return st.ok();
  };

  auto window_start = std::chrono::steady_clock::now();
  int64_t window_iterations = 0;
  while (iteration < welcome.total_iterations()) {
    if (iteration == crash_at && !std::filesystem::exists(ckpt + ".crashed")) {
      std::ofstream(ckpt + ".crashed") << "crashed\n";
      std::cerr << "agent_job: crashing at iteration " << iteration << " as asked\n";
      return 3;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(iteration_ms));
    state = Step(state, iteration);
    ++iteration;
    ++window_iterations;
    if (iteration % 5 == 0) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - window_start).count();
      v1::ProgressReport report;
      report.set_job_id(job);
      report.set_epoch(epoch);
      report.set_iterations_done(iteration);
      report.set_throughput(secs > 0 ? window_iterations / secs : 0);
      v1::ProgressReply reply;
      grpc::ClientContext ctx;
      grpc::Status st = stub->ReportProgress(&ctx, report, &reply);
      window_start = std::chrono::steady_clock::now();
      window_iterations = 0;
      if (!st.ok() && st.error_code() == grpc::StatusCode::FAILED_PRECONDITION) {
        std::cerr << "agent_job: " << st.error_message() << "\n";
        return 6;  // stale lease: another copy may run; do not checkpoint
      }
      if (st.ok() && reply.lease_ending()) {
        std::cout << "agent_job " << job << ": lease ending at iteration " << iteration << std::endl;
        return checkpoint(false) ? 0 : 7;
      }
    }
  }
  std::cout << "agent_job " << job << ": done, state " << state << std::endl;
  if (rank == 0) std::ofstream(dir + "/" + job + ".result") << state << "\n";
  return checkpoint(true) ? 0 : 7;
}
