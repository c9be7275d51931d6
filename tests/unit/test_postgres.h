#pragma once
// A PostgreSQL server of the test binary's own: Debian's initdb and pg_ctl
// (postgresql-15) in a scratch directory, on a free loopback port, started
// on first use and stopped when the binary exits. As root, the server runs
// as the `postgres` account (PostgreSQL refuses root). Tests that need it
// skip where the binaries are missing: the project's tests pass without a
// database server, and CI installs one (scripts/install-deps).
#include <string>

namespace synergy::testing {

class TestPostgres {
 public:
  // The server, or nullptr where it cannot run; `why` says why, and
  // `installed` whether the binaries are there (a server that is installed
  // but does not start is a failure, not a skip).
  static TestPostgres* Get(std::string* why, bool* installed = nullptr);
  // A new, empty database; its libpq DSN.
  std::string NewDatabase(const std::string& name);
  // Ends every session of `database` but the caller's (what a server
  // restart or a cut connection does to a synergyd).
  void DropSessions(const std::string& database);
  int port() const { return port_; }

 private:
  TestPostgres() = default;
  bool Start(std::string* why);
  std::string Admin(const std::string& sql);  // runs `sql` on the maintenance database; "" or the error

  std::string dir_;
  std::string bin_;
  int port_ = 0;
};

}  // namespace synergy::testing

// In a test body: `server` is the test server; the test skips where
// PostgreSQL is not installed and fails where it is but did not start.
#define SYNERGY_TEST_POSTGRES(server)                                      \
  std::string server##_why;                                              \
  bool server##_installed = false;                                       \
  ::synergy::testing::TestPostgres* server =                             \
      ::synergy::testing::TestPostgres::Get(&server##_why, &server##_installed); \
  if (server == nullptr && !server##_installed) GTEST_SKIP() << server##_why; \
  if (server == nullptr) FAIL() << server##_why
