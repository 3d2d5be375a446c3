// tqd with `store = "postgresql://..."` (SPEC 12, tqd.toml(5)) against a real PostgreSQL the test
// starts: tasks, attempts and jobs kept in the database across a restart of tqd, one tqd per
// host name, a store value that is neither refused without being quoted, and a store that
// cannot be reached stopping tqd with a status that is not a configuration error.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "support/pg_server.h"
#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A fresh schema on the test process's PostgreSQL, as a tqd.toml `store` line; "" with the
// reason in `why` when PostgreSQL cannot run here.
std::string StoreLine(std::string* why) {
  const std::string uri = tq::test::FreshSchemaUri(why);
  return uri.empty() ? "" : "store = " + Quoted(uri) + "\n";
}

}  // namespace

TEST_CASE("postgres: a tqd on PostgreSQL runs tasks and keeps them across its restart") {
  std::string why;
  const std::string store = StoreLine(&why);
  if (store.empty()) TQ_SKIP(why);
  TestDaemon d(store);
  const std::string ok = Submit(d, {"--", "sh", "-c", "echo kept-in-postgres"});
  const std::string bad =
      Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base", "100ms", "--", "false"});
  CHECK(Tq(d, {"wait", ok}).exit_code == 0);
  CHECK(Tq(d, {"wait", bad}).exit_code != 0);
  CHECK(Tq(d, {"logs", ok}).out == "kept-in-postgres\n");
  CHECK(access((d.state_dir() + "/tq.db").c_str(), F_OK) != 0);  // no SQLite file beside it

  d.Restart();
  const nlohmann::json good = TaskJson(d, ok);
  CHECK(good["state"] == "succeeded");
  const nlohmann::json failed = TaskJson(d, bad);
  CHECK(failed["state"] == "failed");
  CHECK(failed["attempts"] == 2);
  // It still runs what comes after the restart, with ids that go on from the old ones.
  const std::string next = Submit(d, {"--", "true"});
  CHECK(std::stoll(next) > std::stoll(bad));
  CHECK(Tq(d, {"wait", next}).exit_code == 0);
}

TEST_CASE("postgres: a second tqd as the same host on the same store refuses to start, naming why" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string store = StoreLine(&why);
  if (store.empty()) TQ_SKIP(why);
  TestDaemon first(store);
  const std::string dir = first.dir() + "/second";
  REQUIRE(mkdir(dir.c_str(), 0700) == 0);
  WriteFile(dir + "/tqd.toml", store + "jobs_dir = " + Quoted(dir + "/jobs.d") + "\n");
  Process second({BinPath("tqd"), "--socket", dir + "/tq.sock", "--state", dir + "/state",
                  "--config", dir + "/tqd.toml"},
                 {first.MarkEnv()});
  const RunResult r = second.Finish();
  CHECK(r.exit_code != 0);
  CHECK_MESSAGE(r.err.find("another tqd is host ") != std::string::npos, r.err);
  CHECK(Tq(first, {"ping"}).exit_code == 0);  // the first goes on
}

TEST_CASE("postgres: a store that is neither sqlite nor a PostgreSQL URI is refused unquoted") {
  tq::TempDir tmp{"store-key"};
  const std::string dir = tmp.path.string();
  WriteFile(dir + "/tqd.toml", "store = \"mysql://root:hunter2@db/tq\"\n");
  Process check({BinPath("tqd"), "--socket", dir + "/tq.sock", "--state", dir + "/state",
                 "--config", dir + "/tqd.toml", "--check-config"},
                {});
  const RunResult r = check.Finish();
  CHECK(r.exit_code == 78);
  CHECK_MESSAGE(r.err.find("tqd.toml:1: store: the value is neither \"sqlite\" nor a PostgreSQL "
                           "URI") != std::string::npos,
                r.err);
  CHECK(r.err.find("hunter2") == std::string::npos);
}

TEST_CASE("postgres: a store that cannot be reached stops tqd with a status systemd retries") {
  tq::TempDir tmp{"store-down"};
  const std::string dir = tmp.path.string();
  // Port 1 on the loopback: nothing listens there, so the connection is refused at once.
  WriteFile(dir + "/tqd.toml",
            "store = \"postgresql://tq:hunter2@127.0.0.1:1/tq?connect_timeout=5\"\nhost = "
            "\"a\"\n");
  Process tqd({BinPath("tqd"), "--socket", dir + "/tq.sock", "--state", dir + "/state", "--config",
               dir + "/tqd.toml"},
              {});
  const RunResult r = tqd.Finish();
  CHECK(r.exit_code == 1);  // not 78: the server may come up, and Restart=on-failure tries again
  CHECK_MESSAGE(r.err.find("store: connect failed") != std::string::npos, r.err);
  CHECK(r.err.find("hunter2") == std::string::npos);
}

TEST_CASE(
    "postgres: a store whose schema is newer than tqd's stops it with 78, which systemd "
    "does not retry") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  tq::test::PgQueryInt(
      uri, "CREATE TABLE tq_schema (version bigint); INSERT INTO tq_schema VALUES (999); SELECT 1");
  tq::TempDir tmp{"store-newer"};
  const std::string dir = tmp.path.string();
  WriteFile(dir + "/tqd.toml", "store = " + Quoted(uri) + "\nhost = \"a\"\n");
  Process tqd({BinPath("tqd"), "--socket", dir + "/tq.sock", "--state", dir + "/state", "--config",
               dir + "/tqd.toml"},
              {});
  const RunResult r = tqd.Finish();
  CHECK(r.exit_code == 78);
  CHECK_MESSAGE(r.err.find("newer than this tqd's") != std::string::npos, r.err);
}
