// RunCommand (slurm/run_command.h), the one place the Slurm executor
// starts processes: real processes, their output, exit, environment,
// input, time limit and output limit.
#include "slurm/run_command.h"

#include <signal.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace synergy::slurm {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

TEST(RunCommand, ReturnsOutputErrorAndExitCode) {
  auto r = RunCommand({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, {}, "", 10s, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 3);
}

TEST(RunCommand, TheCommandHasOnlyTheGivenEnvironmentAndItsInput) {
  ::setenv("SYNERGY_RUN_COMMAND_SECRET", "leaked", 1);
  auto r = RunCommand({"/bin/sh", "-c", "echo \"$A|${SYNERGY_RUN_COMMAND_SECRET:-none}\"; cat"}, {"A=1"},
                      "the script\n", 10s, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out, "1|none\nthe script\n");
}

TEST(RunCommand, SignalsBlockedInTheCallerAreNotBlockedInTheCommand) {
  sigset_t term, old;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &old);
  auto r = RunCommand({"/bin/sh", "-c", "kill -TERM $$; sleep 5"}, {}, "", 10s, 1 << 20);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_EQ(r->signal, SIGTERM);
}

TEST(RunCommand, ACommandPastItsTimeIsKilled) {
  auto r = RunCommand({"/bin/sh", "-c", "exec sleep 30"}, {}, "", 300ms, 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(r.status().message(), HasSubstr("/bin/sh"));
}

TEST(RunCommand, ACommandThatClosesItsOutputAndHangsIsKilledToo) {
  auto r = RunCommand({"/bin/sh", "-c", "exec >&- 2>&-; sleep 30"}, {}, "", 300ms, 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(RunCommand, TooMuchOutputIsRefused) {
  auto r = RunCommand({"/bin/sh", "-c", "yes"}, {}, "", 10s, 4096);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(RunCommand, AMissingProgramIsAnErrorNamingIt) {
  auto r = RunCommand({"/nonexistent/sbatch"}, {}, "", 10s, 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/sbatch"));
}

TEST(RunCommand, InputTheCommandNeverReadsDoesNotStopTheCaller) {
  const std::string big(1 << 20, 'x');
  auto r = RunCommand({"/bin/true"}, {}, big, 10s, 1 << 20);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->exit_code, 0);
}

}  // namespace
}  // namespace synergy::slurm
