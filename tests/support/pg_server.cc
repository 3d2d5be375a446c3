#include "support/pg_server.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

namespace tq::test {

namespace {

constexpr uid_t kNobody = 65534;       // Debian's nobody and nogroup
constexpr const char* kPort = "5432";  // names the socket file only: there is no TCP

// The newest /usr/lib/postgresql/VERSION/bin holding the server; "" when none does.
std::string FindBinDir() {
  std::string best;
  int best_version = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string bin = entry.path().string() + "/bin";
    const int version = std::atoi(entry.path().filename().c_str());
    if (version > best_version && access((bin + "/postgres").c_str(), X_OK) == 0) {
      best = bin;
      best_version = version;
    }
  }
  return best;
}

// Starts `argv` with its output appended to `log`, as nobody when run as root; its pid, or -1.
// Everything the child needs is made before fork: the test process may have other threads.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, bool die_with_parent) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char path[] = "PATH=/usr/bin:/bin";
  char lang[] = "LC_ALL=C";
  char* env[] = {path, lang, nullptr};
  const bool root = geteuid() == 0;
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) _exit(126);
  if (root && (setgroups(0, nullptr) != 0 || setgid(kNobody) != 0 || setuid(kNobody) != 0))
    _exit(126);
  // After the change of user, which clears it: a test process that dies takes its server along.
  if (die_with_parent && (prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0 || getppid() != parent)) _exit(126);
  execve(args[0], args.data(), env);
  _exit(127);
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  return all.size() > 2000 ? all.substr(all.size() - 2000) : all;
}

}  // namespace

bool PgServer::Installed() {
  return !FindBinDir().empty();
}

PgServer* PgServer::Get(std::string* why) {
  static std::unique_ptr<PgServer> server;
  static std::string failure;
  if (!server && failure.empty()) {
    std::unique_ptr<PgServer> s(new PgServer());
    failure = s->Start();
    if (failure.empty()) server = std::move(s);
  }
  *why = failure;
  return server.get();
}

std::string PgServer::Start() {
  bin_dir_ = FindBinDir();
  if (bin_dir_.empty()) return "PostgreSQL's server is not installed (Debian: postgresql-15)";
  std::string tmpl = (std::filesystem::temp_directory_path() / "tq-pg-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return "mkdtemp failed";
  dir_ = tmpl;
  if (geteuid() == 0 && chown(dir_.c_str(), kNobody, kNobody) != 0) return "chown failed";
  const std::string log = dir_ + "/log";
  const pid_t init = Spawn({bin_dir_ + "/initdb", "-D", dir_ + "/data", "-U", "tq", "-A", "trust",
                            "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions"},
                           log, false);
  int status = 0;
  if (init < 0 || waitpid(init, &status, 0) != init || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return "initdb failed: " + Tail(log);
  return Launch();
}

std::string PgServer::Launch() {
  const std::string log = dir_ + "/log";
  int status = 0;
  // No fsync and small buffers: the data is thrown away with the test process.
  pid_ = Spawn({bin_dir_ + "/postgres", "-D", dir_ + "/data", "-k", dir_, "-p", kPort, "-c",
                "listen_addresses=", "-F", "-c", "full_page_writes=off", "-c",
                "synchronous_commit=off", "-c", "shared_buffers=16MB", "-c", "max_connections=40"},
               log, true);
  if (pid_ < 0) return "fork failed";
  const std::string conninfo = Conninfo();
  for (int i = 0; i < 1200; ++i) {  // up to a minute on a loaded machine
    if (PQping(conninfo.c_str()) == PQPING_OK) return "";
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      return "the server exited: " + Tail(log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return "the server did not answer within a minute: " + Tail(log);
}

std::string PgServer::Socket() const {
  return dir_ + "/.s.PGSQL." + kPort;
}

std::string PgServer::Conninfo(const std::string& db) const {
  return "host=" + dir_ + " port=" + kPort + " user=tq dbname=" + db;
}

namespace {
// Runs `sql` on database "postgres" of the server at `conninfo`; true when it succeeded.
bool Run(const std::string& conninfo, const std::string& sql) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  PGresult* r = PQexec(conn, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  PQclear(r);
  PQfinish(conn);
  return ok;
}
}  // namespace

std::string PgServer::FreshDatabase() {
  const std::string name = "t" + std::to_string(++databases_);
  return Run(Conninfo(), "CREATE DATABASE " + name) ? Conninfo(name) : "";
}

std::string PgServer::FreshSchema() {
  const std::string name = "s" + std::to_string(++schemas_);
  return Run(Conninfo(), "CREATE SCHEMA " + name)
             ? "postgresql://tq@/postgres?host=" + dir_ + "&port=" + kPort +
                   "&options=-c%20search_path%3D" + name
             : "";
}

std::string PgServer::Restart() {
  if (pid_ <= 0) return "the server is not running";
  kill(pid_, SIGINT);  // a fast shutdown: what was committed is written out
  waitpid(pid_, nullptr, 0);
  pid_ = 0;
  return Launch();
}

PgServer::~PgServer() {
  if (pid_ > 0) {
    kill(pid_, SIGQUIT);  // an immediate shutdown: nothing here is worth keeping
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

std::string FreshSchemaUri(std::string* why) {
  PgServer* pg = PgServer::Get(why);
  if (pg == nullptr) return "";
  const std::string uri = pg->FreshSchema();
  REQUIRE_FALSE(uri.empty());
  return uri;
}

PgSession::PgSession(const std::string& uri) : conn_(PQconnectdb(uri.c_str())) {
  REQUIRE_MESSAGE(PQstatus(conn_) == CONNECTION_OK, PQerrorMessage(conn_));
}

PgSession::~PgSession() {
  PQfinish(conn_);
}

void PgSession::Exec(const std::string& sql) {
  PGresult* res = PQexec(conn_, sql.c_str());
  const ExecStatusType status = PQresultStatus(res);
  const std::string error = PQresultErrorMessage(res);
  PQclear(res);
  REQUIRE_MESSAGE((status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK), sql << ": " << error);
}

long long PgSession::Int(const std::string& sql) {
  PGresult* res = PQexec(conn_, sql.c_str());
  const bool ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
  const std::string error = PQresultErrorMessage(res);
  const long long value = ok ? std::stoll(PQgetvalue(res, 0, 0)) : 0;
  PQclear(res);
  REQUIRE_MESSAGE(ok, sql << ": " << error);
  return value;
}

long long PgQueryInt(const std::string& uri, const std::string& sql) {
  return PgSession(uri).Int(sql);
}

}  // namespace tq::test
