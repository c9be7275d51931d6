#include "slurm/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "slurm/owned_fd.h"

namespace synergy::slurm {
namespace {

absl::Status Errno(const std::string& what, int err) {
  return absl::Status(absl::ErrnoToStatusCode(err), absl::StrCat(what, ": ", std::strerror(err)));
}

// `input` in an anonymous in-memory file, read from its start.
absl::StatusOr<int> InputFile(const std::string& input, const std::string& command) {
  const int fd = ::memfd_create("synergy-slurm-input", MFD_CLOEXEC);
  if (fd < 0) return Errno(absl::StrCat(command, ": its standard input"), errno);
  size_t done = 0;
  while (done < input.size()) {
    const ssize_t n = ::write(fd, input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return Errno(absl::StrCat(command, ": its standard input"), err);
    }
    done += static_cast<size_t>(n);
  }
  ::lseek(fd, 0, SEEK_SET);
  return fd;
}

// Runs `argv` with `env` and its standard streams on `in`, `out` and
// `err`, every signal at its default and none blocked; its pid.
absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in, int out,
                            int err) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies; everything else synergyd has
  // open is closed at exec (it opens with O_CLOEXEC), and closefrom makes
  // sure of it where glibc has it.
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return Errno(absl::StrCat("cannot run ", argv[0]), spawned);
  return pid;
}

absl::Status Overdue(const std::string& command, std::chrono::milliseconds timeout) {
  return absl::DeadlineExceededError(absl::StrCat(command, " did not finish within ", timeout.count(), " ms: killed"));
}

// The command's output and errors, until it closes both or the deadline
// passes or it writes more than `max_bytes` to one.
absl::Status Collect(const std::string& command, OwnedFd* streams[2], std::string* sinks[2],
                     std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds timeout,
                     size_t max_bytes) {
  char buffer[65536];
  while (streams[0]->fd >= 0 || streams[1]->fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Overdue(command, timeout);
    pollfd fds[2];
    int n = 0;
    int which[2];
    for (int i = 0; i < 2; ++i) {
      if (streams[i]->fd < 0) continue;
      fds[n] = {streams[i]->fd, POLLIN, 0};
      which[n++] = i;
    }
    const int ready = ::poll(fds, n, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return Errno(absl::StrCat(command, ": reading its output"), errno);
    for (int k = 0; k < n && ready > 0; ++k) {
      if (fds[k].revents == 0) continue;
      const int i = which[k];
      const ssize_t got = ::read(streams[i]->fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        streams[i]->Close();
        continue;
      }
      if (sinks[i]->size() + static_cast<size_t>(got) > max_bytes) {
        return absl::ResourceExhaustedError(absl::StrCat(command, " wrote more than ", max_bytes, " bytes: killed"));
      }
      sinks[i]->append(buffer, static_cast<size_t>(got));
    }
  }
  return absl::OkStatus();
}

// The command's wait status once it ends; a command that closed its
// output may still run, and gets until the deadline too. An error where
// it did not end in time (the caller kills it) or cannot be waited for.
absl::Status Reap(const std::string& command, pid_t pid, std::chrono::steady_clock::time_point deadline,
                  std::chrono::milliseconds timeout, int& status) {
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return absl::OkStatus();
    if (done < 0 && errno != EINTR) {
      // Reaped elsewhere (or never ours): how it ended is not known.
      return absl::InternalError(absl::StrCat(command, ": waiting for it: ", std::strerror(errno)));
    }
    if (std::chrono::steady_clock::now() >= deadline) return Overdue(command, timeout);
    ::usleep(2000);
  }
}

}  // namespace

absl::StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                         const std::string& input, std::chrono::milliseconds timeout,
                                         size_t max_output_bytes) {
  if (argv.empty()) return absl::InvalidArgumentError("RunCommand: no command");
  const std::string& command = argv[0];
  auto in_fd = InputFile(input, command);
  if (!in_fd.ok()) return in_fd.status();
  OwnedFd in{*in_fd};
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Errno(absl::StrCat(command, ": a pipe"), errno);
  OwnedFd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Errno(absl::StrCat(command, ": a pipe"), errno);
  OwnedFd err_r{err_pipe[0]}, err_w{err_pipe[1]};
  absl::StatusOr<pid_t> pid = Spawn(argv, env, in.fd, out_w.fd, err_w.fd);
  if (!pid.ok()) return pid.status();
  in.Close();
  out_w.Close();
  err_w.Close();

  CommandOutput result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  OwnedFd* streams[2] = {&out_r, &err_r};
  std::string* sinks[2] = {&result.out, &result.err};
  int status = 0;
  absl::Status failure = Collect(command, streams, sinks, deadline, timeout, max_output_bytes);
  if (failure.ok()) {
    failure = Reap(command, *pid, deadline, timeout, status);
    if (failure.code() == absl::StatusCode::kInternal) return failure;  // not ours to kill
  }
  if (!failure.ok()) {
    ::kill(*pid, SIGKILL);
    while (::waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
    }
    return failure;
  }
  if (WIFSIGNALED(status)) {
    result.exit_code = -1;
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace synergy::slurm
