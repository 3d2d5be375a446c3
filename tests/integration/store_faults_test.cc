// Faults of the store under a real tqd: an attempt's end that the store cannot take (another
// writer holds its lock past the busy timeout) is kept and stored once it can, and the wait and
// cancel of that task are answered then; never left hanging.
#include <doctest/doctest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// Another connection to the store holding its write lock while it lives.
class WriteLock {
 public:
  explicit WriteLock(const std::string& path) {
    REQUIRE(sqlite3_open(path.c_str(), &db_) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  ~WriteLock() {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  WriteLock(const WriteLock&) = delete;
  WriteLock& operator=(const WriteLock&) = delete;

 private:
  sqlite3* db_ = nullptr;
};
}  // namespace

TEST_CASE("an end the store cannot take is stored later, its wait and cancel are answered" *
          doctest::test_suite("long")) {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string id =
      Submit(d, {"--", "sh", "-c", "while [ ! -e \"$1\" ]; do sleep 0.05; done", "sh", gate});
  REQUIRE(WaitState(d, id, "running"));
  auto wait = TqBackground(d, {"wait", id});
  std::unique_ptr<Process> cancel;
  {
    WriteLock lock(d.state_dir() + "/tq.db");
    WriteFile(gate, "");
    REQUIRE(WaitFor([&] { return d.Log().find("database is locked") != std::string::npos; },
                    kCallTimeoutS));
    // Reads go on; the store still says running, and a cancel now waits for the stored end.
    CHECK(TaskState(d, id) == "running");
    cancel = TqBackground(d, {"cancel", id});
  }
  const RunResult waited = wait->Finish();
  CHECK_MESSAGE(waited.exit_code == 0, waited.err);
  const RunResult cancelled = cancel->Finish();
  CHECK_MESSAGE(cancelled.exit_code == 0, cancelled.err);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 1);
}
