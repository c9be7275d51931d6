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

namespace synergy::slurm {
namespace {

// Closes what it holds when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

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

}  // namespace

absl::StatusOr<CommandOutput> RunCommand(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                                         const std::string& input, std::chrono::milliseconds timeout,
                                         size_t max_output_bytes) {
  if (argv.empty()) return absl::InvalidArgumentError("RunCommand: no command");
  const std::string& command = argv[0];
  auto in_fd = InputFile(input, command);
  if (!in_fd.ok()) return in_fd.status();
  Fd in{*in_fd};
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Errno(absl::StrCat(command, ": a pipe"), errno);
  Fd out_r{out_pipe[0]}, out_w{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Errno(absl::StrCat(command, ": a pipe"), errno);
  Fd err_r{err_pipe[0]}, err_w{err_pipe[1]};

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies; everything else synergyd has
  // open is closed at exec (it opens with O_CLOEXEC), and closefrom makes
  // sure of it where glibc has it.
  posix_spawn_file_actions_adddup2(&actions, in.fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.fd, 2);
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
  const int spawned = ::posix_spawn(&pid, command.c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) return Errno(absl::StrCat("cannot run ", command), spawned);
  in.Close();
  out_w.Close();
  err_w.Close();

  CommandOutput result;
  absl::Status failure;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Fd* streams[2] = {&out_r, &err_r};
  std::string* sinks[2] = {&result.out, &result.err};
  char buffer[65536];
  while ((out_r.fd >= 0 || err_r.fd >= 0) && failure.ok()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      failure = absl::DeadlineExceededError(
          absl::StrCat(command, " did not finish within ", timeout.count(), " ms: killed"));
      break;
    }
    pollfd fds[2];
    int n = 0;
    int which[2];
    for (int i = 0; i < 2; ++i) {
      if (streams[i]->fd < 0) continue;
      fds[n] = {streams[i]->fd, POLLIN, 0};
      which[n++] = i;
    }
    const int ready = ::poll(fds, n, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) {
      failure = Errno(absl::StrCat(command, ": reading its output"), errno);
      break;
    }
    for (int k = 0; k < n && ready > 0; ++k) {
      if (fds[k].revents == 0) continue;
      const int i = which[k];
      const ssize_t got = ::read(streams[i]->fd, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        streams[i]->Close();
        continue;
      }
      if (sinks[i]->size() + static_cast<size_t>(got) > max_output_bytes) {
        failure = absl::ResourceExhaustedError(
            absl::StrCat(command, " wrote more than ", max_output_bytes, " bytes: killed"));
        break;
      }
      sinks[i]->append(buffer, static_cast<size_t>(got));
    }
  }
  int status = 0;
  // A command that closed its output may still run: it gets until the
  // deadline too.
  while (failure.ok()) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      // Reaped elsewhere (or never ours): how it ended is not known.
      return Errno(absl::StrCat(command, ": waiting for it"), errno);
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      failure = absl::DeadlineExceededError(
          absl::StrCat(command, " did not finish within ", timeout.count(), " ms: killed"));
      break;
    }
    ::usleep(2000);
  }
  if (!failure.ok()) {
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (!failure.ok()) return failure;
  if (WIFSIGNALED(status)) {
    result.exit_code = -1;
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace synergy::slurm
