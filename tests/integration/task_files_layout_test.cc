// Where a task's files are (tqd(8), FILES): attempts/<id / 1000>/<id>.<n>.out and the like, no
// directory per task; the files an earlier tqd kept in tasks/<id>/ are still read, followed to the
// end of a running attempt and purged.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {
// Moves task `id`'s attempt-1 files where an earlier tqd kept them: tasks/<id>/1.status, ...
void MoveToEarlierLayout(const TestDaemon& d, const std::string& id) {
  const std::string old_dir = d.state_dir() + "/tasks/" + id;
  std::filesystem::create_directories(old_dir);
  for (const char* suffix : {".status", ".out", ".err"}) {
    const std::string now = TaskFilesDir(d, id) + "/" + id + ".1" + suffix;
    if (std::filesystem::exists(now)) std::filesystem::rename(now, old_dir + "/1" + suffix);
  }
}
}  // namespace

TEST_CASE("a task's files are named by task and attempt, with no directory of its own") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(Tq(d, {"wait", id}).exit_code == 3);
  CHECK(ReadFile(TaskFilesDir(d, id) + "/" + id + ".1.out") == "out\n");
  CHECK(ReadFile(TaskFilesDir(d, id) + "/" + id + ".1.err") == "err\n");
  CHECK_FALSE(std::filesystem::exists(d.state_dir() + "/tasks"));
}

TEST_CASE("the status record of an attempt over and stored serves a later attempt") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string first = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", first}).exit_code == 0);
  // Once the end is stored, the record waits in attempts/spare/ (a restart no longer needs it).
  const std::string spare_dir = d.state_dir() + "/attempts/spare";
  REQUIRE(WaitFor([&] { return !std::filesystem::exists(RecordPath(d, first)); }));
  std::vector<std::filesystem::path> spares;
  for (const auto& e : std::filesystem::directory_iterator(spare_dir)) spares.push_back(e.path());
  REQUIRE(spares.size() == 1);
  struct stat spare {};
  REQUIRE(stat(spares[0].c_str(), &spare) == 0);

  const std::string flag = d.dir() + "/flag";
  const std::string second = Submit(
      d, {"--", "sh", "-c", "while [ ! -e " + Quoted(flag) + " ]; do sleep 0.05; done; exit 4"});
  REQUIRE(WaitFor([&] { return RecordField(RecordPath(d, second), "pid") > 0; }));
  struct stat record {};
  REQUIRE(stat(RecordPath(d, second).c_str(), &record) == 0);
  CHECK(record.st_ino == spare.st_ino);  // the same file, renamed: no new inode
  WriteFile(flag, "");
  CHECK(Tq(d, {"wait", second}).exit_code == 4);
  CHECK(TaskJson(d, second)["exit_code"] == 4);
}

TEST_CASE("files an earlier tqd kept in tasks/ID/ are read, followed and purged") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string done = Submit(d, {"--", "sh", "-c", "echo earlier"});
  CHECK(Tq(d, {"wait", done}).exit_code == 0);
  const std::string flag = d.dir() + "/flag";
  const std::string running =
      Submit(d, {"--", "sh", "-c",
                 "echo started; while [ ! -e " + Quoted(flag) + " ]; do sleep 0.05; done; exit 5"});
  REQUIRE(WaitFor([&] { return Tq(d, {"logs", running}).out == "started\n"; }));

  // As an upgrade finds them: tqd gone, one task over and one still running, their files where
  // the earlier tqd put them (the running shim writes its record through its descriptor).
  d.Kill9();
  MoveToEarlierLayout(d, done);
  MoveToEarlierLayout(d, running);
  d.Start();
  d.WaitReady();
  CHECK(Tq(d, {"logs", done}).out == "earlier\n");
  CHECK(Tq(d, {"logs", running}).out == "started\n");
  WriteFile(flag, "");
  CHECK(Tq(d, {"wait", running}).exit_code == 5);
  CHECK(TaskJson(d, running)["reason"] == "exit");

  // Retention removes the earlier directories too (short only now, so that on a slow machine
  // nothing is purged before it was read).
  d.WriteConfig("success_retention = \"1s\"\npurge_after = \"2s\"\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  for (const std::string& id : {done, running}) {
    CAPTURE(id);
    CHECK(WaitFor([&] { return Tq(d, {"status", id}).exit_code == 4; }));
    CHECK(WaitFor([&] { return !std::filesystem::exists(d.state_dir() + "/tasks/" + id); }));
  }
}
