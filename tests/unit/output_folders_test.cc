// The Slurm executor's output folders: made for the job's account, 0700,
// never through a link, never taken from another account.
#include "slurm/output_folders.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace synergy::slurm {
namespace {

using ::testing::HasSubstr;

class OutputFoldersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("synergy-output-folders-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // This process's own account: what a test that is not root can give.
  JobIdentity Me() const { return JobIdentity{::geteuid(), ::getegid(), "me"}; }
  static struct stat Stat(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
    return st;
  }
  std::filesystem::path dir_;
};

TEST_F(OutputFoldersTest, TheAccountsFolderAndItsNodesAreItsOwnAndPrivate) {
  ASSERT_TRUE(MakeOutputFolders(dir_, Me(), "sn1").ok());
  ASSERT_TRUE(MakeOutputFolders(dir_, Me(), "sn2").ok());
  for (const char* sub : {"me", "me/sn1", "me/sn2"}) {
    struct stat st = Stat(dir_ / sub);
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << sub;
    EXPECT_EQ(st.st_mode & 07777, 0700u) << sub;
    EXPECT_EQ(st.st_uid, ::geteuid()) << sub;
  }
  // A folder loosened since is made private again.
  ::chmod((dir_ / "me/sn1").c_str(), 0777);
  ASSERT_TRUE(MakeOutputFolders(dir_, Me(), "sn1").ok());
  EXPECT_EQ(Stat(dir_ / "me/sn1").st_mode & 07777, 0700u);
}

TEST_F(OutputFoldersTest, APlantedLinkIsNotFollowed) {
  std::filesystem::create_directories(dir_ / "elsewhere");
  std::filesystem::create_directory_symlink(dir_ / "elsewhere", dir_ / "me");
  absl::Status st = MakeOutputFolders(dir_, Me(), "sn1");
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("is a link or not a folder: not followed"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "elsewhere" / "sn1"));
  std::filesystem::remove(dir_ / "me");
  std::filesystem::create_directories(dir_ / "me");
  std::filesystem::create_symlink("/", dir_ / "me" / "sn1");
  EXPECT_FALSE(MakeOutputFolders(dir_, Me(), "sn1").ok());
}

TEST_F(OutputFoldersTest, AnotherAccountsFolderIsRefusedNotTakenOver) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a folder another account owns";
  std::filesystem::create_directories(dir_ / "me");
  ASSERT_EQ(::chown((dir_ / "me").c_str(), 4242, 4242), 0);
  JobIdentity alice{1000, 1000, "me"};
  absl::Status st = MakeOutputFolders(dir_, alice, "sn1");
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(std::string(st.message()), HasSubstr("belongs to uid 4242, not the job's account (uid 1000)"));
  // Root's own folder (made before) is given to the account.
  std::filesystem::create_directories(dir_ / "alice");
  ASSERT_TRUE(MakeOutputFolders(dir_, JobIdentity{1000, 1001, "alice"}, "sn1").ok());
  EXPECT_EQ(Stat(dir_ / "alice").st_uid, 1000u);
  EXPECT_EQ(Stat(dir_ / "alice").st_gid, 1001u);
  EXPECT_EQ(Stat(dir_ / "alice/sn1").st_uid, 1000u);
}

TEST_F(OutputFoldersTest, NamesThatAreNotOneComponentAreRefused) {
  for (const std::string bad : {"", ".", "..", "a/b"}) {
    EXPECT_FALSE(MakeOutputFolders(dir_, JobIdentity{::geteuid(), ::getegid(), bad}, "sn1").ok()) << bad;
    EXPECT_FALSE(MakeOutputFolders(dir_, Me(), bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace synergy::slurm
