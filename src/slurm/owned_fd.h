#pragma once
// A file descriptor closed when its holder goes out of scope (or at
// Close), for the Slurm executor's pipes, input files and folders.
#include <unistd.h>

namespace synergy::slurm {

struct OwnedFd {
  int fd = -1;
  OwnedFd() = default;
  explicit OwnedFd(int f) : fd(f) {}
  OwnedFd(const OwnedFd&) = delete;
  OwnedFd& operator=(const OwnedFd&) = delete;
  ~OwnedFd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

}  // namespace synergy::slurm
