// Cancelling a running task ends all its processes, including ones that left its process group
// with setsid(); a task that ignores TERM is killed after kill_grace.
#include <doctest/doctest.h>

#include <string>

#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("cancelling a running task ends its grandchildren even in another session") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gc = d.dir() + "/gc.pid", gc2 = d.dir() + "/gc2.pid";
  const std::string script = "sh -c 'echo $$ > " + gc + "; exec sleep 1000' & " +
                             "setsid sh -c 'echo $$ > " + gc2 + "; exec sleep 1000' & wait";
  const std::string id = Submit(d, {"--", "sh", "-c", script});
  const pid_t p1 = WaitPidFile(gc);
  const pid_t p2 = WaitPidFile(gc2);
  CHECK(TaskState(d, id) == "running");

  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(cancel.out.find(id) != std::string::npos);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  CHECK(t["reason"] == "cancelled");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["reason"] == "cancelled");
  CHECK(WaitFor([&] { return ProcessGone(p1); }));
  CHECK(WaitFor([&] { return ProcessGone(p2); }));
  CHECK(Tq(d, {"wait", id}).exit_code == 128 + 15);  // it was ended by TERM
}

TEST_CASE("a task that ignores TERM is killed after kill_grace") {
  TestDaemon d("kill_grace = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid";
  const std::string id =
      Submit(d, {"--", "sh", "-c", "trap '' TERM; echo $$ > " + pidfile + "; exec sleep 1000"});
  const pid_t pid = WaitPidFile(pidfile);
  const RunResult cancel = Tq(d, {"cancel", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  REQUIRE(t["attempt_log"].size() == 1);
  CHECK(t["attempt_log"][0]["signal"] == 9);  // TERM was ignored: KILL ended it
  CHECK(WaitFor([&] { return ProcessGone(pid); }));
}

TEST_CASE("cancelling a pending task and a task that already ended") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string done = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", done}).exit_code == 0);
  const std::string later = Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult cancel = Tq(d, {"cancel", "--json", later, done});
  CHECK(cancel.exit_code == 0);
  const auto lines = JsonLines(cancel.out);
  CHECK(lines.size() == 2);
  CHECK(TaskState(d, later) == "cancelled");
  CHECK(TaskState(d, done) == "succeeded");  // a terminal task stays as it was
  CHECK(Tq(d, {"cancel", "999999"}).exit_code == 4);
}

TEST_CASE("tq cancel --signal INT sends INT first, and the task may end on it") {
  TestDaemon d("kill_grace = \"60s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string got = d.dir() + "/got", pidfile = d.dir() + "/task.pid";
  const std::string id = Submit(
      d, {"--", "sh", "-c",
          "trap 'echo INT > " + Quoted(got) + "; exit 130' INT; trap 'echo TERM > " + Quoted(got) +
              "; exit 143' TERM; echo $$ > " + Quoted(pidfile) + "; while :; do sleep 0.05; done"});
  WaitPidFile(pidfile);
  const RunResult cancel = Tq(d, {"cancel", "--signal", "int", id});
  CHECK_MESSAGE(cancel.exit_code == 0, cancel.err);
  CHECK(ReadFile(got) == "INT\n");
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  CHECK(t["attempt_log"][0]["reason"] == "cancelled");
  CHECK(d.Log().find("stopping (cancelled): INT now") != std::string::npos);
}

TEST_CASE("tq cancel --kill skips the grace, and hurries a stop already in its grace") {
  TestDaemon d("kill_grace = \"600s\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string pidfile = d.dir() + "/task.pid", pidfile2 = d.dir() + "/task2.pid";
  auto stubborn = [](const std::string& pid) {
    return std::vector<std::string>{"--", "sh", "-c",
                                    "trap '' TERM; echo $$ > " + Quoted(pid) + "; exec sleep 1000"};
  };
  const std::string id = Submit(d, stubborn(pidfile));
  WaitPidFile(pidfile);
  // Waiting out 600 s of grace would outlast the call's timeout.
  const RunResult killed = Tq(d, {"cancel", "--kill", id});
  CHECK_MESSAGE(killed.exit_code == 0, killed.err);
  nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "cancelled");
  CHECK(t["attempt_log"][0]["signal"] == 9);

  const std::string second = Submit(d, stubborn(pidfile2));
  WaitPidFile(pidfile2);
  auto patient = TqBackground(d, {"cancel", second});
  REQUIRE(WaitFor([&] {
    return d.Log().find("task " + second + " attempt 1: stopping (cancelled): TERM now") !=
           std::string::npos;
  }));
  const RunResult hurry = Tq(d, {"cancel", "--signal", "KILL", second});
  CHECK_MESSAGE(hurry.exit_code == 0, hurry.err);
  CHECK(patient->Finish().exit_code == 0);
  t = TaskJson(d, second);
  CHECK(t["state"] == "cancelled");
  CHECK(t["attempt_log"][0]["signal"] == 9);
}

TEST_CASE("tq cancel carries on when tqd restarts in the kill grace, for ids and for filters") {
  for (const bool by_label : {false, true}) {
    CAPTURE(by_label);
    TestDaemon d("kill_grace = \"2s\"\n");
    TQ_LOG_ON_FAILURE(d);
    const std::string pidfile = d.dir() + "/task" + std::to_string(by_label) + ".pid";
    const std::string id =
        Submit(d, {"-l", "stubborn", "--", "sh", "-c",
                   "trap '' TERM; echo $$ > " + Quoted(pidfile) + "; exec sleep 1000"});
    WaitPidFile(pidfile);
    auto cancel =
        TqBackground(d, by_label ? std::vector<std::string>{"cancel", "--label", "stubborn"}
                                 : std::vector<std::string>{"cancel", id});
    REQUIRE(WaitFor([&] {
      return d.Log().find("task " + id + " attempt 1: stopping (cancelled): TERM now") !=
             std::string::npos;
    }));
    d.Kill9();
    d.Start();
    d.WaitReady();
    const RunResult ended = cancel->Finish();
    CHECK_MESSAGE(ended.exit_code == 0, ended.err);
    CHECK(ended.out.starts_with(id + " cancelled"));
    const nlohmann::json t = TaskJson(d, id);
    CHECK(t["state"] == "cancelled");
    CHECK(t["attempt_log"][0]["signal"] == 9);
  }
}

TEST_CASE("tq cancel refuses a signal it does not know, and --signal with --kill") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult unknown = Tq(d, {"cancel", "--signal", "FOO", id});
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("--signal: \"FOO\" is not one of HUP INT QUIT") != std::string::npos);
  const RunResult both = Tq(d, {"cancel", "--signal", "INT", "--kill", id});
  CHECK(both.exit_code == 2);
  CHECK(both.err.find("not both") != std::string::npos);
  CHECK(TaskState(d, id) == "pending");
}
