// The PostgreSQL store's connection layer against a real server: any bytes and 64-bit integers
// pass unchanged, failures are faults of the right kind that never quote stored values,
// transactions and savepoints hold, a lost connection comes back, and a server that stops
// answering costs a bounded wait (SPEC 12).
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/store/postgres/pg_db.h"
#include "support/pg_proxy.h"
#include "support/pg_server.h"
#include "support/skip.h"
#include "support/temp_dir.h"

namespace tq::pg {
namespace {

using sql::Query;
using sql::Stmt;
using sql::Transaction;

// A connection to a database of its own on the process's server, or null with why in *why.
std::unique_ptr<Db> FreshDb(std::string* why) {
  test::PgServer* server = test::PgServer::Get(why);
  if (server == nullptr) return nullptr;
  const std::string conninfo = server->FreshDatabase();
  REQUIRE_FALSE(conninfo.empty());
  Result<std::unique_ptr<Db>> db = Db::Open(conninfo);
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  return std::move(*db);
}

// `sql` prepared on `db`, which must succeed.
Stmt Prepared(Db& db, const std::string& what, const std::string& sql) {
  Result<Stmt> stmt = db.Prepare(what, sql);
  REQUIRE_MESSAGE(stmt.ok(), stmt.status().message());
  return std::move(*stmt);
}

// The rows of `sql` (no parameters), each column read as bytes ("NULL" for a null).
std::vector<std::vector<std::string>> Rows(Db& db, const std::string& sql, int columns) {
  Stmt stmt = Prepared(db, "read", sql);
  Query q(stmt);
  std::vector<std::vector<std::string>> rows;
  Status s = q.ForEach([&] {
    std::vector<std::string> row;
    for (int c = 0; c < columns; ++c) row.push_back(q.IsNull(c) ? "NULL" : q.Blob(c));
    rows.push_back(row);
  });
  REQUIRE_MESSAGE(s.ok(), s.message());
  return rows;
}

TEST_CASE("FaultOfSqlState: what passes by trying again and what does not") {
  struct Case {
    const char* sqlstate;
    StoreFault fault;
  };
  const Case cases[] = {
      {"08006", StoreFault::kTransient},  // connection failure
      {"08001", StoreFault::kTransient},  // cannot connect
      {"57P01", StoreFault::kTransient},  // admin shutdown
      {"57P03", StoreFault::kTransient},  // cannot connect now (starting)
      {"57014", StoreFault::kTransient},  // statement cancelled
      {"40001", StoreFault::kTransient},  // serialisation failure
      {"40P01", StoreFault::kTransient},  // deadlock
      {"55P03", StoreFault::kTransient},  // lock not available
      {"53300", StoreFault::kTransient},  // too many connections
      {"53200", StoreFault::kTransient},  // out of memory
      {"53100", StoreFault::kPermanent},  // disk full
      {"23505", StoreFault::kPermanent},  // unique violation
      {"22021", StoreFault::kPermanent},  // bad encoding
      {"42P01", StoreFault::kPermanent},  // no such table
      {"25006", StoreFault::kPermanent},  // read-only transaction
      {"XX001", StoreFault::kPermanent},  // data corrupted
      {"", StoreFault::kPermanent},       // none given
      {"0800", StoreFault::kPermanent},   // not a SQLSTATE
  };
  for (const Case& c : cases) {
    CAPTURE(c.sqlstate);
    CHECK(FaultOfSqlState(c.sqlstate) == c.fault);
  }
}

TEST_CASE("pg: any bytes and any 64-bit integer go in and come back unchanged") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  REQUIRE(db->Exec("create", "CREATE TABLE t (n bigint, b bytea, s text)").ok());
  const std::string odd("\0\xff\xfe caf\xe9\n", 10);
  const std::vector<std::optional<std::string>> bytes = {odd, std::string(), std::nullopt};
  const int64_t ints[] = {std::numeric_limits<int64_t>::min(), -1,
                          std::numeric_limits<int64_t>::max()};
  Stmt insert = Prepared(*db, "insert row", "INSERT INTO t (n, b, s) VALUES ($1, $2, $3)");
  for (int i = 0; i < 3; ++i) {
    Query q(insert);
    REQUIRE(
        q.BindInt(ints[i]).BindOptBlob(bytes[i]).BindText("state-" + std::to_string(i)).Run().ok());
    CHECK(db->Changes() == 1);
  }
  Stmt read = Prepared(*db, "read rows", "SELECT n, b, s, n > 0 FROM t WHERE n >= $1 ORDER BY n");
  Query q(read);
  q.BindOptInt(std::numeric_limits<int64_t>::min());
  std::vector<int64_t> got_ints;
  std::vector<std::optional<std::string>> got_bytes;
  REQUIRE(q.ForEach([&] {
             got_ints.push_back(q.Int(0));
             got_bytes.push_back(q.IsNull(1) ? std::nullopt
                                             : std::optional<std::string>(q.Blob(1)));
             CHECK(q.Blob(2).rfind("state-", 0) == 0);
             CHECK(q.Int(3) == (q.Int(0) > 0 ? 1 : 0));  // a boolean reads as 0 or 1
           }).ok());
  CHECK(got_ints == std::vector<int64_t>(std::begin(ints), std::end(ints)));
  CHECK(got_bytes == bytes);

  // A statement that fails as it runs fails whole, naming what failed.
  Stmt narrow = Prepared(*db, "narrow rows", "SELECT n::int2 FROM t");
  const Status s = Query(narrow).Run();
  CHECK(s.message() == "store: narrow rows failed: smallint out of range");
  CHECK(s.fault() == StoreFault::kPermanent);

  Stmt update = Prepared(*db, "update rows", "UPDATE t SET s = $1");
  Query u(update);
  REQUIRE(u.BindText("x").Run().ok());
  CHECK(db->Changes() == 3);
}

TEST_CASE("pg: a parameter PostgreSQL would take as a small integer takes 64-bit values") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  Stmt pick = Prepared(*db, "pick", "SELECT CASE WHEN $1 > 0 THEN $1 ELSE 0 END");
  Query q(pick);
  Result<bool> row = q.BindInt(std::numeric_limits<int64_t>::max()).Step();
  REQUIRE_MESSAGE(row.ok(), row.status().message());
  REQUIRE(*row);
  CHECK(q.Int(0) == std::numeric_limits<int64_t>::max());
}

TEST_CASE("pg: a list of texts binds as an array, quotes and backslashes included") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  Stmt in = Prepared(*db, "member", "SELECT $1 <> ALL (CAST($2 AS text[]))");
  const std::vector<std::string> list = {"gpu=2", "a\"b", "c\\d", ""};
  for (const std::string& value : list) {
    Query q(in);
    REQUIRE(q.BindText(value).BindTextList(list).Step().ok());
    CHECK(q.Int(0) == 0);  // a member
  }
  Query q(in);
  REQUIRE(q.BindText("a").BindTextList(list).Step().ok());
  CHECK(q.Int(0) == 1);
}

TEST_CASE("pg: a refused statement is a permanent fault naming what failed, never the value") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  REQUIRE(db->Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(*db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  REQUIRE(Query(insert).BindBlob("secret-value").Run().ok());
  const Status dup = Query(insert).BindBlob("secret-value").Run();
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.fault() == StoreFault::kPermanent);
  CHECK(dup.message() ==
        "store: insert key failed: duplicate key value violates unique "
        "constraint \"k_pkey\"");

  const Status none = db->Prepare("read nothing", "SELECT x FROM no_such_table").status();
  CHECK(none.fault() == StoreFault::kPermanent);
  CHECK(none.message().find("store: prepare read nothing failed: relation \"no_such_table\"") == 0);
}

// Ends `db`'s session on the server, as an administrator or a restart would, from a connection
// of its own; waits until it is gone.
void EndSession(Db& db) {
  std::string why;
  Result<std::unique_ptr<Db>> killer = Db::Open(test::PgServer::Get(&why)->Conninfo());
  REQUIRE_MESSAGE(killer.ok(), killer.status().message());
  Stmt kill = Prepared(**killer, "terminate", "SELECT pg_terminate_backend($1::int, 10000)");
  REQUIRE(Query(kill).BindInt(db.backend_pid()).Run().ok());
}

TEST_CASE("pg: a transaction commits or rolls back whole, and a savepoint undoes one item") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  REQUIRE(db->Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(*db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  {
    Transaction tx(*db);
    REQUIRE(tx.Begin().ok());
    REQUIRE(Query(insert).BindBlob("a").Run().ok());
    CHECK(db->InTransaction());
  }  // rolled back
  CHECK_FALSE(db->InTransaction());
  CHECK(Rows(*db, "SELECT key FROM k", 1).empty());

  {
    Transaction tx(*db);
    REQUIRE(tx.Begin().ok());
    REQUIRE(Query(insert).BindBlob("a").Run().ok());
    REQUIRE(db->Savepoint().ok());
    CHECK_FALSE(Query(insert).BindBlob("a").Run().ok());
    CHECK(db->InTransaction());  // aborted, but open until rolled back to the savepoint
    REQUIRE(db->RollbackToSavepoint().ok());
    REQUIRE(db->ReleaseSavepoint().ok());
    REQUIRE(Query(insert).BindBlob("b").Run().ok());
    REQUIRE(tx.Commit().ok());
  }
  CHECK(Rows(*db, "SELECT key FROM k ORDER BY key", 1) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b"}});

  // A failed statement without a savepoint spoils the transaction: its COMMIT fails.
  Transaction tx(*db);
  REQUIRE(tx.Begin().ok());
  REQUIRE(Query(insert).BindBlob("c").Run().ok());
  CHECK_FALSE(Query(insert).BindBlob("a").Run().ok());
  const Status commit = tx.Commit();
  CHECK(commit.message() ==
        "store: commit failed: the transaction was aborted by an earlier error");
  CHECK(Rows(*db, "SELECT key FROM k WHERE key = 'c'", 1).empty());
}

TEST_CASE(
    "pg: a connection the server ended is made again, and lost inside a transaction fails it") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  const auto terminate = [&] { EndSession(*db); };
  REQUIRE(db->Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(*db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  REQUIRE(Query(insert).BindBlob("a").Run().ok());
  const uint64_t first = db->connection();

  // Outside a transaction, a call that meets a connection the server ended connects again,
  // prepares its statement again on the new connection and runs there (issue 49: right after
  // a restart of the server, `tq submit` failed with "terminating connection due to
  // administrator command").
  terminate();
  REQUIRE(Query(insert).BindBlob("b").Run().ok());
  CHECK(db->connection() != first);
  terminate();
  REQUIRE(db->Exec("select", "SELECT 1").ok());

  // Inside a transaction, nothing runs on a new connection until the transaction is given up:
  // its first statements are gone with the old one.
  Transaction tx(*db);
  REQUIRE(tx.Begin().ok());
  REQUIRE(Query(insert).BindBlob("c").Run().ok());
  terminate();
  CHECK(Query(insert).BindBlob("d").Run().fault() == StoreFault::kTransient);
  const Status refused = Query(insert).BindBlob("d").Run();
  CHECK(refused.fault() == StoreFault::kTransient);
  CHECK(refused.message().find("lost inside a transaction") != std::string::npos);
  CHECK_FALSE(db->InTransaction());
  db->Rollback();
  REQUIRE(Query(insert).BindBlob("e").Run().ok());
  CHECK(Rows(*db, "SELECT key FROM k ORDER BY key", 1) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"e"}});
}

// A transaction's BEGIN, and its savepoints, go to the server with its next statement (libpq's
// pipeline): one round trip fewer for each transaction and each item of a group.
TEST_CASE(
    "pg: a transaction begins with its first statement, so a connection ended before it "
    "is made again") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  const auto terminate = [&] { EndSession(*db); };
  REQUIRE(db->Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(*db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  const uint64_t first = db->connection();
  {
    Transaction tx(*db);
    REQUIRE(tx.Begin().ok());
    CHECK(db->InTransaction());
    terminate();  // nothing of the transaction has gone yet: it all runs on a new connection
    const Status inserted = Query(insert).BindBlob("a").Run();
    REQUIRE_MESSAGE(inserted.ok(), inserted.message());
    CHECK(db->connection() != first);
    REQUIRE(db->Savepoint().ok());
    REQUIRE(db->RollbackToSavepoint().ok());  // a savepoint with nothing after it
    REQUIRE(db->ReleaseSavepoint().ok());
    REQUIRE(db->Savepoint().ok());
    REQUIRE(Query(insert).BindBlob("b").Run().ok());
    REQUIRE(db->ReleaseSavepoint().ok());  // goes with the COMMIT
    REQUIRE(tx.Commit().ok());
  }
  CHECK_FALSE(db->InTransaction());
  // A failed first statement fails with BEGIN's transaction, which rolls back whole.
  {
    Transaction tx(*db);
    REQUIRE(tx.Begin().ok());
    CHECK_FALSE(Query(insert).BindBlob("a").Run().ok());
    CHECK(db->InTransaction());  // aborted, open until rolled back
  }
  CHECK_FALSE(db->InTransaction());
  CHECK(Rows(*db, "SELECT key FROM k ORDER BY key", 1) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b"}});
}

TEST_CASE("pg: a transaction with nothing in it says nothing to the server") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string database = server->FreshDatabase();
  test::PgProxy proxy(server->Socket());
  Result<std::unique_ptr<Db>> db = Db::Open(proxy.Through(database));
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  (*db)->SetAnswerTimeout(300);
  proxy.Freeze();  // a word to the server now would go unanswered
  Transaction tx(**db);
  REQUIRE(tx.Begin().ok());
  REQUIRE((*db)->Savepoint().ok());
  REQUIRE((*db)->ReleaseSavepoint().ok());
  CHECK(tx.Commit().ok());
  CHECK_FALSE((*db)->InTransaction());
}

TEST_CASE("pg: a server that is not there is a transient fault") {
  const Result<std::unique_ptr<Db>> db =
      Db::Open("host=/nonexistent-tq-dir port=5432 user=tq dbname=tq");
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().fault() == StoreFault::kTransient);
  CHECK(db.status().message().find("store: connect failed: ") == 0);
}

TEST_CASE(
    "pg: a call the server leaves unanswered past the answer timeout gives its connection up") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  db->SetAnswerTimeout(300);
  REQUIRE(db->Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(*db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  Stmt slow = Prepared(*db, "sleep", "SELECT pg_sleep($1::float8)");
  const uint64_t first = db->connection();

  // A statement, then a prepared one, that the server answers only after the timeout.
  const Status stalled = db->Exec("sleep", "SELECT pg_sleep(10)");
  CHECK(stalled.fault() == StoreFault::kTransient);
  CHECK_MESSAGE(
      stalled.message().find("the server did not answer within 300 ms") != std::string::npos,
      stalled.message());
  REQUIRE(Query(insert).BindBlob("a").Run().ok());  // on a new connection
  CHECK(db->connection() != first);
  const uint64_t second = db->connection();
  CHECK(Query(slow).BindInt(10).Run().fault() == StoreFault::kTransient);
  REQUIRE(Query(insert).BindBlob("b").Run().ok());
  CHECK(db->connection() != second);

  // Inside a transaction: what it did is gone with the connection, and it is given up whole.
  Transaction tx(*db);
  REQUIRE(tx.Begin().ok());
  REQUIRE(Query(insert).BindBlob("c").Run().ok());
  CHECK(Query(slow).BindInt(10).Run().fault() == StoreFault::kTransient);
  CHECK(Query(insert).BindBlob("d").Run().message().find("lost inside a transaction") !=
        std::string::npos);
  db->Rollback();
  CHECK(Rows(*db, "SELECT key FROM k ORDER BY key", 1) ==
        std::vector<std::vector<std::string>>{{"a"}, {"b"}});
}

TEST_CASE("pg: after a reconnect fails, calls fail at once for the pause, then connect again") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  Result<std::unique_ptr<Db>> admin = Db::Open(test::PgServer::Get(&why)->Conninfo());
  REQUIRE(admin.ok());
  const std::string name = Rows(*db, "SELECT current_database()::bytea", 1)[0][0];
  // The server refuses this connection's database while `open` is false, and its session ends.
  const auto refuse = [&](bool open) {
    REQUIRE((*admin)
                ->Exec("allow",
                       "ALTER DATABASE " + name + " ALLOW_CONNECTIONS " + (open ? "true" : "false"))
                .ok());
    if (open) return;
    Stmt kill = Prepared(**admin, "terminate", "SELECT pg_terminate_backend($1::int, 10000)");
    REQUIRE(Query(kill).BindInt(db->backend_pid()).Run().ok());
  };
  const auto select = [&] { return db->Exec("select", "SELECT 1"); };

  // No pause: each call tries to connect again, and one succeeds once the server lets it.
  db->SetReconnectPauses(0, 0);
  refuse(false);
  CHECK(select().fault() == StoreFault::kTransient);  // the session is gone
  const Status refused = select();                    // a reconnect the server refuses
  CHECK(refused.fault() == StoreFault::kTransient);
  CHECK_MESSAGE(refused.message().find("not currently accepting connections") != std::string::npos,
                refused.message());
  refuse(true);
  REQUIRE(select().ok());

  // With a pause: the call after a refused reconnect does not try, and says when it will.
  db->SetReconnectPauses(60000, 60000);
  refuse(false);
  // Its session gone, the call connects again at once (MayRunAgain), and the server refuses.
  const Status gone = select();
  CHECK(gone.fault() == StoreFault::kTransient);
  CHECK_MESSAGE(gone.message().find("not currently accepting connections") != std::string::npos,
                gone.message());
  const Status paused = select();
  CHECK(paused.fault() == StoreFault::kTransient);
  CHECK_MESSAGE(paused.message().find("the server could not be reached; trying again within ") !=
                    std::string::npos,
                paused.message());
  refuse(true);
}

TEST_CASE("pg: a server that accepts the connection and never answers is a transient fault" *
          doctest::test_suite("long")) {
  // A Unix socket where a server's would be, listening but never accepting: the kernel takes
  // the connection and libpq waits for an answer. Without a connect timeout it would wait forever.
  TempDir dir{"pg-silent"};
  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(listener >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string path = dir.path.string() + "/.s.PGSQL.5432";
  REQUIRE(path.size() < sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(listen(listener, 8) == 0);
  const Result<std::unique_ptr<Db>> db =
      Db::Open("host=" + dir.path.string() + " port=5432 user=tq dbname=tq");
  close(listener);
  REQUIRE_FALSE(db.ok());
  CHECK(db.status().fault() == StoreFault::kTransient);
  CHECK(db.status().message().find("store: connect failed: ") == 0);
}

// Waits up to 10 s for `ready`.
bool WaitUntil(const std::function<bool()>& ready) {
  for (int i = 0; i < 1000; ++i) {
    if (ready()) return true;
    usleep(10 * 1000);
  }
  return ready();
}

// Issue 49: a statement given up at the answer timeout went on on the server for as long as it
// took (and held what it held meanwhile).
TEST_CASE("pg: a statement past the answer timeout is cancelled on the server") {
  std::string why;
  std::unique_ptr<Db> db = FreshDb(&why);
  if (!db) TQ_SKIP(why);
  Result<std::unique_ptr<Db>> admin = Db::Open(test::PgServer::Get(&why)->Conninfo());
  REQUIRE(admin.ok());
  db->SetAnswerTimeout(300);
  CHECK(db->Exec("sleep", "SELECT pg_sleep(30) AS tq_cancelled").fault() == StoreFault::kTransient);
  CHECK(WaitUntil([&] {
    return Rows(**admin,
                "SELECT count(*)::text::bytea FROM pg_stat_activity WHERE state = 'active' "
                "AND query LIKE '%AS tq_cancelled'",
                1)[0][0] == "0";
  }));
}

// Issue 49: behind a network that stopped carrying the connection, the server keeps the
// session tqd gave up, with its host lock, for as long as TCP's keepalives let it (two hours by
// default); every reconnect then failed with "another tqd is host ...".
TEST_CASE("pg: the session a stalled connection left on the server is ended by the next one") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string database = server->FreshDatabase();
  REQUIRE_FALSE(database.empty());
  test::PgProxy proxy(server->Socket());
  Result<std::unique_ptr<Db>> db = Db::Open(proxy.Through(database));
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  (*db)->SetAnswerTimeout(300);
  (*db)->SetReconnectPauses(0, 0);
  // A lock for as long as the session lives, as each tqd holds its host's.
  REQUIRE((*db)
              ->OnConnect("DO $$ BEGIN IF NOT pg_try_advisory_lock(4242) THEN "
                          "RAISE EXCEPTION 'the lock is held'; END IF; END $$")
              .ok());
  const int first = (*db)->backend_pid();

  proxy.Freeze();
  CHECK((*db)->Exec("select", "SELECT 1").fault() == StoreFault::kTransient);
  // The next calls connect again through the proxy; the old session, idle behind the frozen
  // connection, holds the lock until it is ended.
  CHECK(WaitUntil([&] { return (*db)->Exec("select", "SELECT 1").ok(); }));
  CHECK((*db)->backend_pid() != first);
  Result<std::unique_ptr<Db>> admin = Db::Open(server->Conninfo());
  REQUIRE(admin.ok());
  CHECK(Rows(**admin,
             "SELECT count(*)::text::bytea FROM pg_stat_activity WHERE pid = " +
                 std::to_string(first),
             1)[0][0] == "0");
}

// Issue 49: while the server did not answer, the caller (tqd's event loop) waited in poll(2),
// and in PQreset for each new connection, doing nothing else. Every wait goes through the
// waiter given: the loop's, which runs meanwhile what needs no store.
TEST_CASE("pg: a statement and a new connection wait through the waiter given, in slices" *
          doctest::test_suite("long")) {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string database = server->FreshDatabase();
  REQUIRE_FALSE(database.empty());
  test::PgProxy proxy(server->Socket());
  Result<std::unique_ptr<Db>> opened = Db::Open(proxy.Through(database) + " connect_timeout=2");
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  Db& db = **opened;
  db.SetAnswerTimeout(1000);
  db.SetReconnectPauses(0, 0);
  // The loop's stand-in: waits in slices of 50 ms, counting them.
  int slices = 0;
  db.WaitWith([&](int fd, short events, int timeout_ms) {
    for (int waited = 0;; waited += 50) {
      const int slice = timeout_ms < 0 ? 50 : std::min(50, timeout_ms - waited);
      if (slice <= 0) return 0;
      pollfd p{fd, events, 0};
      ++slices;
      const int ready = poll(&p, fd >= 0 ? 1 : 0, slice);
      if (ready != 0) return ready > 0 ? 1 : -1;
    }
  });
  REQUIRE(db.Exec("select", "SELECT 1").ok());

  proxy.Freeze();  // the statement gets no answer for its second
  slices = 0;
  CHECK(db.Exec("select", "SELECT 1").fault() == StoreFault::kTransient);
  CHECK(slices >= 10);
  proxy.Hang(true);  // and the next connection none for libpq's 2 s
  slices = 0;
  const Status connect = db.Exec("select", "SELECT 1");
  CHECK(connect.fault() == StoreFault::kTransient);
  CHECK(slices >= 20);
  proxy.Hang(false);
  CHECK(WaitUntil([&] { return db.Exec("select", "SELECT 1").ok(); }));
}

// Issue 49: a COMMIT the server carried out whose answer never came was reported failed, so the
// claims it stored never started (attempts "running" with no process) and `tq queue resume`
// answered "commit failed" for a queue it resumed. Its outcome is read back on a new connection.
TEST_CASE("pg: a commit whose answer never came is read back, kept or not as the server did") {
  std::string why;
  test::PgServer* server = test::PgServer::Get(&why);
  if (server == nullptr) TQ_SKIP(why);
  const std::string database = server->FreshDatabase();
  REQUIRE_FALSE(database.empty());
  test::PgProxy proxy(server->Socket());
  Result<std::unique_ptr<Db>> opened = Db::Open(proxy.Through(database));
  REQUIRE_MESSAGE(opened.ok(), opened.status().message());
  Db& db = **opened;
  db.SetAnswerTimeout(300);
  db.SetReconnectPauses(0, 0);
  REQUIRE(db.Exec("create", "CREATE TABLE k (key bytea PRIMARY KEY)").ok());
  Stmt insert = Prepared(db, "insert key", "INSERT INTO k (key) VALUES ($1)");
  const auto keys = [&] { return Rows(db, "SELECT key FROM k ORDER BY key", 1); };

  {  // the server commits; its answer is lost on the way
    Transaction tx(db);
    REQUIRE(tx.Begin().ok());
    REQUIRE(Query(insert).BindBlob("kept").Run().ok());
    proxy.Deafen();
    const Status committed = tx.Commit();
    CHECK_MESSAGE(committed.ok(), committed.message());
  }
  CHECK(keys() == std::vector<std::vector<std::string>>{{"kept"}});
  {  // COMMIT never reaches the server: the transaction is ended with its session, undone
    Transaction tx(db);
    REQUIRE(tx.Begin().ok());
    REQUIRE(Query(insert).BindBlob("lost").Run().ok());
    proxy.Freeze();
    const Status lost = tx.Commit();
    CHECK(lost.fault() == StoreFault::kTransient);
  }
  CHECK(keys() == std::vector<std::vector<std::string>>{{"kept"}});
}

}  // namespace
}  // namespace tq::pg
