#include "slurm/slurm_cli.h"

#include <charconv>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/escape.h"
#include "slurm/run_command.h"
#include "slurm/slurm_json.h"

namespace synergy::slurm {
namespace {

// What a command says on stderr, for a log line and an exit's reason:
// its first line, printable, bounded.
std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return service::EscapeForDisplay(absl::StripAsciiWhitespace(line), 200);
}

}  // namespace

absl::StatusOr<int64_t> ParseSbatchAnswer(const std::string& text) {
  const std::string trimmed(absl::StripAsciiWhitespace(text));
  const std::string id_text = trimmed.substr(0, trimmed.find(';'));
  int64_t id = 0;
  auto [end, ec] = std::from_chars(id_text.data(), id_text.data() + id_text.size(), id);
  if (id_text.empty() || ec != std::errc() || end != id_text.data() + id_text.size() || id <= 0) {
    return absl::InternalError(
        absl::StrCat("sbatch answered ", service::QuoteForMessage(trimmed.substr(0, 200)), ", not a job id"));
  }
  return id;
}

absl::StatusOr<std::string> SlurmCli::Run(const std::string& name, const std::vector<std::string>& args,
                                          const std::vector<std::string>& env, const std::string& input) {
  std::vector<std::string> argv = {options_.bin_dir + "/" + name};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandTally* tally = nullptr;
  for (size_t i = 0; i < std::size(kSlurmCommands); ++i) {
    if (name == kSlurmCommands[i]) tally = &tallies_[i];
  }
  const auto start = std::chrono::steady_clock::now();
  auto out = RunCommand(argv, env, input, options_.timeout, kMaxJsonBytes);
  if (tally != nullptr) {
    tally->calls++;
    tally->micros += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
    if (out.ok()) tally->bytes += static_cast<int64_t>(out->out.size());
    if (!out.ok() || out->exit_code != 0) tally->failures++;
  }
  if (!out.ok()) return out.status();
  if (out->exit_code < 0) {
    // Killed midway: what it did is not known.
    return absl::UnavailableError(absl::StrCat(name, " was killed by signal ", out->signal));
  }
  if (out->exit_code != 0) {
    const std::string why = FirstLine(out->err);
    return absl::FailedPreconditionError(absl::StrCat(
        name, " failed (exit ", out->exit_code, ")", why.empty() ? "" : ": ", why));
  }
  return std::move(out->out);
}

namespace {
std::vector<std::string> EnvOf(const SlurmCliOptions& options) {
  std::vector<std::string> env;
  for (const auto& [name, value] : options.env) env.push_back(name + "=" + value);
  return env;
}
}  // namespace

// One record a node (--Node: 23.02 and later group nodes otherwise), of
// the partition only where Slurm filters (23.02 and later; 22.05 lists
// every node, which the parser skips unread).
absl::StatusOr<std::string> SlurmCli::NodesJson() {
  std::vector<std::string> args = {"--json", "--Node"};
  if (!options_.partition.empty()) args.push_back("--partition=" + options_.partition);
  return Run("sinfo", args, EnvOf(options_), "");
}

// The partition's jobs in every state: 24.05.1 and later filter --json
// output, by default down to the live states, and an ended job's exit is
// what the executor reads (22.05 to 24.05.0 list every job whatever the
// options).
absl::StatusOr<std::string> SlurmCli::JobsJson() {
  std::vector<std::string> args = {"--json", "--states=all"};
  if (!options_.partition.empty()) args.push_back("--partition=" + options_.partition);
  return Run("squeue", args, EnvOf(options_), "");
}

absl::StatusOr<int64_t> SlurmCli::Submit(const SbatchCall& call) {
  std::vector<std::string> args(call.argv.begin() + (call.argv.empty() ? 0 : 1), call.argv.end());
  auto out = Run("sbatch", args, call.env, call.script);
  if (!out.ok()) {
    // sbatch that could not reach slurmctld may or may not have left a job
    // there: the executor looks for it by name before deciding.
    const bool uncertain = out.status().code() == absl::StatusCode::kDeadlineExceeded ||
                           out.status().code() == absl::StatusCode::kUnavailable ||
                           absl::StrContains(out.status().message(), "Unable to contact slurm controller") ||
                           absl::StrContains(out.status().message(), "Socket timed out") ||
                           absl::StrContains(out.status().message(), "Zero Bytes were transmitted");
    if (uncertain) return absl::UnavailableError(out.status().message());
    return out.status();
  }
  absl::StatusOr<int64_t> id = ParseSbatchAnswer(*out);
  // sbatch said yes in words it does not use: Slurm may well have the job.
  if (!id.ok()) return absl::UnavailableError(id.status().message());
  return id;
}

absl::Status SlurmCli::Signal(int64_t job, const std::string& signal) {
  return Run("scancel", {"--signal=" + signal, "--batch", absl::StrCat(job)}, EnvOf(options_), "").status();
}

absl::Status SlurmCli::Cancel(int64_t job) {
  return Run("scancel", {absl::StrCat(job)}, EnvOf(options_), "").status();
}

}  // namespace synergy::slurm
