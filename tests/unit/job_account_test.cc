// Which local account a job runs as (node/job_account.h), against this
// machine's passwd database: Debian's base system always has `daemon`
// (uid 1) and `nobody`.
#include "node/job_account.h"

#include <pwd.h>

#include <string>

#include "gtest/gtest.h"

namespace synergy::node {
namespace {

TEST(JobAccount, AUserNamedLikeASystemAccountDoesNotGetIt) {
  ASSERT_NE(::getpwnam("daemon"), nullptr) << "Debian's base system has a daemon account";
  ASSERT_LT(::getpwnam("daemon")->pw_uid, FirstUserUid());
  const absl::StatusOr<std::optional<JobAccount>> account = AccountForJob("daemon", AccountRule{});
  ASSERT_EQ(account.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(std::string(account.status().message()).find("is a system account (uid 1"), std::string::npos)
      << account.status();
}

TEST(JobAccount, AnExplicitMappingToASystemAccountIsTheOperatorsChoice) {
  AccountRule rule;
  rule.accounts["alice"] = "daemon";
  const absl::StatusOr<std::optional<JobAccount>> account = AccountForJob("alice", rule);
  // Not refused as a system account: as root the node runs it as daemon;
  // otherwise it cannot switch accounts at all.
  if (::geteuid() == 0) {
    ASSERT_TRUE(account.ok()) << account.status();
    ASSERT_TRUE(account->has_value());
    EXPECT_EQ((*account)->name, "daemon");
  } else {
    EXPECT_EQ(std::string(account.status().message()).find("system account"), std::string::npos);
  }
}

TEST(JobAccount, TheFirstUserUidIsLoginDefsUidMin) { EXPECT_GE(FirstUserUid(), 100u); }

}  // namespace
}  // namespace synergy::node
