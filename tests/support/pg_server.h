// A real PostgreSQL server for the tests of one process (SPEC 12): Debian's postgresql package,
// initialised in a temporary directory on first use and run as "nobody" when the tests run as
// root (PostgreSQL refuses root), listening on a Unix socket in that directory only, so test
// processes never share one; stopped, and its directory removed, when the process exits.
#pragma once

#include <sys/types.h>

#include <string>

struct pg_conn;  // libpq's connection

namespace tq::test {

/// The process's PostgreSQL server.
class PgServer {
 public:
  /// True when PostgreSQL's server is installed here (the tests that need it may run).
  static bool Installed();
  /// The server, started on the first call; nullptr when it cannot run here (PostgreSQL is not
  /// installed, or it did not start), with the reason in `*why`.
  static PgServer* Get(std::string* why);

  /// The path of the server's Unix socket.
  std::string Socket() const;
  /// libpq's conninfo of database `db` on the server.
  std::string Conninfo(const std::string& db = "postgres") const;
  /// Creates a database of its own for one test; returns its conninfo ("" when that failed).
  std::string FreshDatabase();
  /// Creates a schema of its own in database "postgres" for one test; returns the URI of a
  /// session that works in it ("postgresql://...", "" when that failed).
  std::string FreshSchema();
  /// Restarts the server as an administrator's restart does: a fast shutdown (every session is
  /// ended, what was committed is kept), then a start on the same data; "" once it answers
  /// again, else why not.
  std::string Restart();

  ~PgServer();
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

 private:
  PgServer() = default;
  /// initdb, then the server; "" once it answers, else why not.
  std::string Start();
  /// Starts the server on the data directory; "" once it answers, else why not.
  std::string Launch();

  std::string bin_dir_;  ///< PostgreSQL's programs
  std::string dir_;      ///< the data directory's parent, the socket's and the log's directory
  pid_t pid_ = 0;        ///< the postmaster
  int databases_ = 0;    ///< databases made by FreshDatabase
  int schemas_ = 0;      ///< schemas made by FreshSchema
};

/// A fresh schema on the process's server for one test, as the URI of a session that works in
/// it; "" when the server cannot run here, with the reason in `*why`. REQUIREs that it is made.
std::string FreshSchemaUri(std::string* why);

/// One session of the database at `uri` (REQUIREs that it opens), kept for several statements:
/// what a session holds (prepared statements, their plans) lasts as long as it.
class PgSession {
 public:
  explicit PgSession(const std::string& uri);
  ~PgSession();
  PgSession(const PgSession&) = delete;
  PgSession& operator=(const PgSession&) = delete;

  /// Runs `sql` (a failed check when it fails).
  void Exec(const std::string& sql);
  /// The single integer `sql` yields (a failed check when it yields anything else).
  long long Int(const std::string& sql);

 private:
  pg_conn* conn_;
};

/// The single integer `sql` yields in the database at `uri` (a failed check when it yields
/// anything else).
long long PgQueryInt(const std::string& uri, const std::string& sql);

}  // namespace tq::test
