#include "daemon/state/sqlite_store.h"

#include <sys/stat.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "sqlite3.h"

namespace synergy::daemon {
namespace {

std::string TempDb(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("synergy-store-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return (dir / "state.db").string();
}

// It holds the credential key and jobs' environments: the database and its
// WAL are the owner's only, whatever the umask.
TEST(Store, TheDatabaseAndItsWalArePrivate) {
  const std::string path = TempDb("private");
  const mode_t old_mask = ::umask(022);
  auto store = SqliteStore::Open(path);
  ::umask(old_mask);
  ASSERT_TRUE(store.ok()) << store.status();
  Batch b;
  b.secrets["key"] = "value";
  ASSERT_TRUE((*store)->Commit(b).ok());
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    const auto perms = std::filesystem::status(file).permissions();
    EXPECT_EQ(perms & (std::filesystem::perms::group_all | std::filesystem::perms::others_all),
              std::filesystem::perms::none)
        << file;
  }
}

// A state database written before drains had reasons (here: one whose
// migration stopped after the first column) opens, keeps its drains, and
// stores reasons from then on.
TEST(Store, ADatabaseWithoutDrainReasonsGainsThem) {
  const std::string path = TempDb("migrate");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE nodes(name TEXT PRIMARY KEY, drained INTEGER NOT NULL,"
                         " reason TEXT NOT NULL DEFAULT '');"  // cut short after the first column
                         "INSERT INTO nodes(name, drained) VALUES('n1', 1), ('n2', 0);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  {
    auto store = SqliteStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    auto drained = (*store)->LoadDrained();
    ASSERT_TRUE(drained.ok()) << drained.status();
    EXPECT_TRUE(drained->at("n1").drained);
    EXPECT_EQ(drained->at("n1").reason, "");
    EXPECT_FALSE(drained->at("n2").drained);
    Batch b;
    b.drained["n2"] = NodeDrain{true, "memory errors", 9};
    ASSERT_TRUE((*store)->Commit(b).ok());
  }
  auto store = SqliteStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  EXPECT_EQ((*store)->LoadDrained()->at("n2").reason, "memory errors");
}

TEST(Store, OpenFailureNamesThePath) {
  auto store = SqliteStore::Open("/nonexistent-dir/x/state.db");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("/nonexistent-dir/x/state.db"), std::string::npos);
}

}  // namespace
}  // namespace synergy::daemon
