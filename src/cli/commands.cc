#include "cli/commands.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace synergy::cli {

namespace {

constexpr const char* kGlobal =
    "usage: synergyctl [--server HOST:PORT] [--token T] [--ca FILE] [--server-name NAME] [--plaintext] COMMAND\n";
constexpr const char* kGlobalAbout =
    "--server defaults to $SYNERGY_SERVER or 127.0.0.1:50051, --token to $SYNERGY_TOKEN, --ca to $SYNERGY_CA\n"
    "(else the system's roots), --plaintext to $SYNERGY_PLAINTEXT=1 (loopback only).\n"
    "--server a:50051,b:50051 (a leader and its standbys): the one that leads is used.\n"
    "Exit status: 0 done, 1 refused by synergyd (or unreachable), 2 bad usage or input.\n"
    "synergyctl COMMAND --help: that command's help. synergyctl --version.\n";

// What reads: submit, get, history, describe, logs.
std::vector<CommandHelp> ReadingCommands() {
  return {
      {"submit", "submit -f JOB.yaml|- [--profile-of ID] [--array 0-99[%N]] [--after-ok ID,ID] [--after-any ID,ID]",
       "Submits a job (-f -: the spec from stdin); prints its id. The spec's fields are in docs/job-spec.md; a\n"
       "bad spec is refused here with its file, line and field, and nothing is submitted. --profile-of: the job\n"
       "is scheduled from the profile job ID measured (its profile_points), and not profiled again whatever the spec's profile says.\n"
       "--array: a job array (as sbatch --array; over the spec's array:): one job per index (0-99, 1,3,5-7,\n"
       "0-20:2), SYNERGY_ARRAY_INDEX in each one's environment, %N: at most N running at once; prints the\n"
       "array's id (its first job's), which verbs take for all its jobs; ID_3 or ID[3] is the job of index 3.\n"
       "--after-ok, --after-any: wait for these jobs to succeed, or to end (sbatch --dependency=afterok,\n"
       "afterany); an after_ok job that fails cancels this one.",
       {"-f", "--profile-of", "--array", "--after-ok", "--after-any"}},
      {"get",
       "get jobs [ID...] [--state S,S] [--user U] [--tenant T] [--limit N] [--sort-by KEY] [-o wide|json|yaml|name] [-w [--full]]\n"
       "get nodes [-o wide|json|yaml|name] [-w]",
       "Lists jobs (or the named ones: `get job ID`) or nodes. An array's jobs fold into one row (its indices,\n"
       "its jobs by state) unless -o wide. --state: states separated by commas\n"
       "(pending, queued, profiling, running, suspended, succeeded, failed, cancelled, timed_out; asked of\n"
       "synergyd).\n"
       "--user, --tenant: only theirs (asked of synergyd). --limit: the first N jobs by id. Lists are read a\n"
       "page at a time and show summaries (describe shows a job's command, environment and events).\n"
       "--sort-by: id (default), name, state, user, tenant, gpus, age\n"
       "(oldest first), priority (highest first). -o wide: more columns; json, yaml: the protocol's messages;\n"
       "name: ids (or node names) only, one a line. -w: again every 2 s (--interval S) until interrupted; for\n"
       "jobs as kubectl: the header once, then the rows that are new or changed (state, reason, lease, node,\n"
       "hold, priority; not progress); --full, or nodes, or -o json|yaml|name: every listing whole, each under\n"
       "the time it was read.",
       {"jobs", "nodes", "job", "--state", "--user", "--tenant", "--limit", "--sort-by", "-o", "-w", "--interval",
        "--full"}},
      {"history", "history [--since 2h|2026-12-04T09:00:00Z] [--state S,S] [--user U] [--tenant T] [--limit N] [-o json|csv|trace]",
       "Jobs as sacct shows them: submitted, first launched, ended (UTC); waited (launch - submission), ran (time\n"
       "holding GPUs), its GPUs and GPU-hours held, JCT (end - submission); launches and outcome. --since: submitted since a duration ago (90s,\n"
       "30m, 2h, 7d) or an RFC 3339 time. --state, --user, --tenant: as get jobs, filtered in synergyd; retired jobs\n"
       "included. --limit: the first N by id. -o csv or json: durations in seconds. -o trace: the jobs that\n"
       "succeeded, for synergy-sim run --trace FILE (what would another policy have done?); skips on stderr.",
       {"--since", "--state", "--user", "--tenant", "--limit", "-o"}},
      {"usage", "usage [--since 30d|2026-12-01T00:00:00Z] [--by user|tenant] [--user U] [--tenant T] [-o csv|json]",
       "What each user (or tenant) used, as sreport: jobs, GPU-, CPU- and GB-hours held (summed over leases),\n"
       "mean wait (first launch - submission) and mean JCT (end - submission, of jobs that ended), most\n"
       "GPU-hours first, then the total. Over the jobs submitted since --since (all without it), retired\n"
       "ones included. -o csv or json: hours and seconds as numbers.",
       {"--since", "--by", "--user", "--tenant", "-o"}},
      {"describe", "describe job ID\ndescribe node NAME",
       "One job in full, with its events (-o json or yaml: the protocol's message); or one node: status, ids\n"
       "offered and allocated, jobs, cgroups, last heartbeat.",
       {"job", "node", "-o"}},
      {"logs", "logs ID [-f] [--lease N] [--rank R] [--stderr]",
       "A job's output (stdout; --stderr: its stderr), of its latest lease or lease N, rank 0 or R,\n"
       "read from the node that ran it, even after the job moved or ended (while that node is connected).\n"
       "-f (--follow): until the job ends, moving on to each new lease (headers on stderr). Nodes keep\n"
       "each file under log_max_bytes (the older part is in FILE.1 on the node).",
       {"-f", "--follow", "--lease", "--rank", "--stderr"}},
  };
}

// What changes jobs and nodes, and what needs no synergyd.
std::vector<CommandHelp> ControlCommands() {
  return {
      {"cancel", "cancel ID [ID...]\ncancel [--user U] [--tenant T] [--state S,S] [--yes]",
       "Cancels jobs: their leases end (agents checkpoint first); they are not requeued. With --user, --tenant\n"
       "and --state instead of ids: the jobs they pick (as get jobs), all of them with --yes when more than one\n"
       "(like scancel -u alice -t PD). A line per job; exit 1 if any was refused.",
       {"--user", "--tenant", "--state", "--yes"}},
      {"hold", "hold ID [ID...] | hold [--user U] [--tenant T] [--state S,S] [--yes]",
       "Holds jobs (their owner or an admin): no lease until `release`; a lease one holds ends (the agent\n"
       "checkpoints first). Like scontrol hold; an admin's hold is released by an admin only. Selectors as cancel.",
       {"--user", "--tenant", "--state", "--yes"}},
      {"release", "release ID [ID...] | release [--user U] [--tenant T] [--state S,S] [--yes]",
       "Releases held jobs: the next round may place them again. Selectors as cancel.", {"--user", "--tenant", "--state", "--yes"}},
      {"requeue", "requeue ID [ID...] | requeue [--user U] [--tenant T] [--state S,S] [--yes]",
       "Ends running jobs' leases (agents checkpoint first) and puts them back in the queue; their\n"
       "crash counts are untouched. Like scontrol requeue. Selectors as cancel.",
       {"--user", "--tenant", "--state", "--yes"}},
      {"update", "update ID --priority N",
       "Changes a job's priority class (0 to 1000; higher classes are placed first). Its owner may\n"
       "lower it; only an admin raises it.",
       {"--priority"}},
      {"cluster", "cluster [-o json|yaml]", "Capacity, allocation, jobs by state, the policy and the last round.", {"-o"}},
      {"drain", "drain NODE [--reason TEXT]",
       "No new leases on the node; its running leases end at the next round. The reason (one line, at\n"
       "most 256 bytes) is shown by get nodes -o wide and describe node; draining again replaces it.",
       {"--reason"}},
      {"undrain", "undrain NODE", "Leases may be placed on the node again.", {}},
      {"hash-credential", "hash-credential < FILE",
       "Prints the SHA-256 of the credential on stdin, for token_sha256: in synergyd.yaml.", {}},
      {"completion", "completion bash",
       "Prints a bash completion script: source <(synergyctl completion bash), or install it in\n"
       "/usr/share/bash-completion/completions/synergyctl.",
       {"bash"}},
  };
}

}  // namespace

const std::vector<CommandHelp>& Commands() {
  static const std::vector<CommandHelp> kCommands = [] {
    std::vector<CommandHelp> all = ReadingCommands();
    for (CommandHelp& c : ControlCommands()) all.push_back(std::move(c));
    return all;
  }();
  return kCommands;
}

std::string Usage() {
  std::string out = kGlobal;
  for (const CommandHelp& c : Commands()) {
    absl::StrAppend(&out, "  ", absl::StrReplaceAll(c.synopsis, {{"\n", "\n  "}}), "\n");
  }
  return absl::StrCat(out, "  --version\n", kGlobalAbout);
}

std::string HelpFor(const std::string& command) {
  for (const CommandHelp& c : Commands()) {
    if (c.name != command) continue;
    return absl::StrCat("usage: synergyctl ", absl::StrReplaceAll(c.synopsis, {{"\n", "\n       synergyctl "}}),
                        "\n\n", c.about, "\n");
  }
  return "";
}

std::string CompletionScript(const std::string& shell) {
  if (shell != "bash") return "";
  std::vector<std::string> names;
  std::string cases;
  for (const CommandHelp& c : Commands()) {
    names.push_back(c.name);
    if (!c.words.empty()) {
      absl::StrAppend(&cases, "    ", c.name, ") words=\"$words ", absl::StrJoin(c.words, " "), "\" ;;\n");
    }
  }
  return absl::StrCat(
      "# bash completion for synergyctl (synergyctl completion bash)\n"
      "# _synergyctl_names jobs|nodes: their ids or names, asked of synergyd (2 s at most) with the connection\n"
      "# flags of the line being completed.\n"
      "_synergyctl_names() {\n"
      "  timeout 2 \"${COMP_WORDS[0]}\" \"${connection[@]}\" get \"$1\" -o name 2>/dev/null\n"
      "}\n"
      "_synergyctl() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command=\"\" words i\n"
      "  local -a connection=()\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      --server|--token|--ca|--server-name) connection+=(\"${COMP_WORDS[i]}\" \"${COMP_WORDS[i+1]}\"); ((i++)) ;;\n"
      "      --plaintext) connection+=(--plaintext) ;;\n"
      "      -*) ;;\n"
      "      *) [[ -z $command ]] && command=${COMP_WORDS[i]} ;;\n"
      "    esac\n"
      "  done\n"
      "  case $prev in\n"
      "    -f|--ca) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "    -o) COMPREPLY=($(compgen -W \"wide json yaml name csv trace\" -- \"$cur\")); return ;;\n"
      "    --state) COMPREPLY=($(compgen -W \"pending queued profiling running suspended succeeded failed cancelled "
      "timed_out\" -- \"$cur\")); return ;;\n"
      "    --sort-by) COMPREPLY=($(compgen -W \"id name state user tenant gpus age priority\" -- \"$cur\")); return ;;\n"
      "  esac\n"
      "  if [[ -z $command ]]; then\n"
      "    COMPREPLY=($(compgen -W \"",
      absl::StrJoin(names, " "),
      " --server --token --ca --server-name --plaintext --version --help\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  words=\"--help\"\n"
      "  case $command in\n",
      cases,
      "  esac\n"
      "  # Ids and names where a command takes them (not after a flag's own value).\n"
      "  if [[ $cur != -* ]]; then\n"
      "    case $command:$prev in\n"
      "      cancel:*|hold:*|release:*|requeue:*|update:*|logs:*|get:job|get:jobs|describe:job)\n"
      "        words=\"$words $(_synergyctl_names jobs)\" ;;\n"
      "      drain:*|undrain:*|describe:node) words=\"$words $(_synergyctl_names nodes)\" ;;\n"
      "    esac\n"
      "  fi\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}\n"
      "complete -F _synergyctl synergyctl\n");
}

}  // namespace synergy::cli
