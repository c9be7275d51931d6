#include "test_postgres.h"

#include <libpq-fe.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace synergy::testing {
namespace {

namespace fs = std::filesystem;

// The newest installed server's bin directory, or "".
std::string PgServerBin() {
  std::string best;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const fs::path bin = e.path() / "bin";
    if (fs::exists(bin / "initdb") && fs::exists(bin / "pg_ctl") && bin.string() > best) best = bin.string();
  }
  return best;
}

int PgFreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

// `command` as the server's account: itself, or `postgres` under root.
std::string PgAsServerAccount(const std::string& command) {
  if (::geteuid() != 0) return command;
  return absl::StrCat("runuser -u postgres -- ", command);
}

}  // namespace

TestPostgres* TestPostgres::Get(std::string* why, bool* installed) {
  static std::once_flag once;
  static TestPostgres* server = nullptr;
  static std::string reason;
  std::call_once(once, [] {
    auto s = std::unique_ptr<TestPostgres>(new TestPostgres);
    if (s->Start(&reason)) {
      server = s.release();
      std::atexit([] {
        const std::string stop = PgAsServerAccount(
            absl::StrCat(server->bin_, "/pg_ctl -D ", server->dir_, "/data -m immediate -s stop >/dev/null 2>&1"));
        [[maybe_unused]] const int rc = std::system(stop.c_str());
        std::error_code ec;
        fs::remove_all(server->dir_, ec);
      });
    }
  });
  if (why != nullptr) *why = reason;
  if (installed != nullptr) *installed = !PgServerBin().empty();
  return server;
}

bool TestPostgres::Start(std::string* why) {
  bin_ = PgServerBin();
  if (bin_.empty()) {
    *why = "no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb; scripts/install-deps installs it)";
    return false;
  }
  if (::geteuid() == 0 && ::getpwnam("postgres") == nullptr) {
    *why = "running as root and there is no postgres account to run the server as";
    return false;
  }
  dir_ = (fs::temp_directory_path() / absl::StrCat("synergy-pg-", ::getpid())).string();
  std::error_code ec;
  fs::remove_all(dir_, ec);
  fs::create_directories(dir_);
  if (::geteuid() == 0) {
    const passwd* pg = ::getpwnam("postgres");
    if (::chown(dir_.c_str(), pg->pw_uid, pg->pw_gid) != 0) {
      *why = "cannot hand the scratch directory to the postgres account";
      return false;
    }
  }
  // initdb's output is the caller's to write; the server's log is its own
  // account's (as root, postgres cannot write a file root made).
  const std::string log = dir_ + "/initdb.log";
  const std::string server_log = dir_ + "/data/server.log";
  const std::string init = PgAsServerAccount(absl::StrCat(bin_, "/initdb -D ", dir_, "/data -U synergy -A trust",
                                                          " -E UTF8 --locale=C --no-sync >", log, " 2>&1"));
  if (std::system(init.c_str()) != 0) {
    *why = absl::StrCat("initdb failed (its log: ", log, ")");
    return false;
  }
  // A port found free may be taken before the server binds it: try three.
  for (int attempt = 0; attempt < 3; ++attempt) {
    port_ = PgFreePort();
    const std::string start = PgAsServerAccount(absl::StrCat(bin_, "/pg_ctl -D ", dir_, "/data -l ", server_log,
                                                             " -w -t 60 -s -o '-c listen_addresses=127.0.0.1 -p ",
                                                             port_, " -k ", dir_, "' start >/dev/null 2>&1"));
    if (std::system(start.c_str()) == 0) return true;
  }
  *why = absl::StrCat("the test server did not start (its log: ", server_log, ")");
  return false;
}

std::string TestPostgres::Admin(const std::string& sql) {
  const std::string dsn = absl::StrCat("host=127.0.0.1 port=", port_, " dbname=postgres user=synergy");
  PGconn* c = PQconnectdb(dsn.c_str());
  PQsetNoticeProcessor(
      c, [](void*, const char*) {}, nullptr);  // "does not exist, skipping"
  std::string error;
  if (PQstatus(c) != CONNECTION_OK) {
    error = PQerrorMessage(c);
  } else {
    PGresult* r = PQexec(c, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) error = PQerrorMessage(c);
    PQclear(r);
  }
  PQfinish(c);
  return error;
}

std::string TestPostgres::NewDatabase(const std::string& name) {
  Admin(absl::StrCat("DROP DATABASE IF EXISTS ", name, " WITH (FORCE)"));
  const std::string error = Admin(absl::StrCat("CREATE DATABASE ", name));
  if (!error.empty()) return "";
  return absl::StrCat("host=127.0.0.1 port=", port_, " dbname=", name, " user=synergy");
}

void TestPostgres::DropSessions(const std::string& database) {
  Admin(absl::StrCat("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '", database,
                     "' AND pid <> pg_backend_pid()"));
}

}  // namespace synergy::testing
