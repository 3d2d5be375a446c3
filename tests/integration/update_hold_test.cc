// Editing a pending task (issue 26): `tq update` changes what was given at submit, refused once
// the task is no longer pending; `tq hold` keeps a pending task from starting until
// `tq release`, and says so in `tq list` (WHEN: held), across a daemon restart too.
#include <doctest/doctest.h>

#include <string>

#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("tq update changes a pending task's settings and refuses one that is not pending") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "-l", "old", "--", "echo", "hi"});

  const RunResult r = Tq(d, {"update", id, "-p", "1", "-q", "night", "-l", "a", "-l", "b",
                             "--timeout", "5m", "--retries", "2"});
  CHECK_MESSAGE(r.exit_code == 0, r.err);
  CHECK(r.out == id + " updated\n");
  CHECK(r.err.find("queue \"night\" is new") != std::string::npos);
  nlohmann::json t = TaskJson(d, id);
  CHECK(t["priority"] == 1);
  CHECK(t["queue"] == "night");
  CHECK(t["labels"] == nlohmann::json{"a", "b"});
  CHECK(t["timeout_ms"] == 300000);
  CHECK(t["retry"]["retries"] == 2);
  CHECK(t["argv"] == nlohmann::json{"echo", "hi"});
  CHECK(TaskState(d, id) == "pending");

  const RunResult json = Tq(d, {"--json", "update", id, "--no-labels"});
  CHECK(nlohmann::json::parse(json.out)["labels"].empty());
  CHECK(json.err.empty());  // the queue exists now

  // --delay 0: due at once, so it runs.
  CHECK(Tq(d, {"update", id, "--delay", "0"}).exit_code == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const RunResult late = Tq(d, {"update", id, "-p", "2"});
  CHECK(late.exit_code == 2);
  CHECK(late.err ==
        "tq: state: task " + id + " is succeeded; only a pending task can be changed\n");
  CHECK(TaskJson(d, id)["priority"] == 1);

  SUBCASE("bad values and no change are refused, naming the flag or field") {
    const std::string other = Submit(d, {"--delay", "1h", "--", "true"});
    const RunResult nothing = Tq(d, {"update", other});
    CHECK(nothing.exit_code == 2);
    CHECK(nothing.err.find("nothing to change") != std::string::npos);
    const RunResult bad_queue = Tq(d, {"update", other, "-q", "no such"});
    CHECK(bad_queue.exit_code == 2);
    CHECK(bad_queue.err.find("queue: \"no such\" is not a queue name") != std::string::npos);
    CHECK(Tq(d, {"update", other, "-p", "0"}).exit_code == 2);
    CHECK(Tq(d, {"update", other, "--delay", "1h", "--at", "12:00"}).exit_code == 2);
    CHECK(Tq(d, {"update", "999999", "-p", "1"}).exit_code == 4);
    CHECK(TaskJson(d, other)["queue"] == "default");
    CHECK(Tq(d, {"cancel", other}).exit_code == 0);
  }
}

TEST_CASE("tq hold keeps a pending task from starting until tq release") {
  TestDaemon d("max_running = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  // A running task keeps the one slot busy while the next is held.
  const std::string blocker =
      Submit(d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"});
  REQUIRE(WaitState(d, blocker, "running"));
  const std::string held = Submit(d, {"-l", "batch", "--", "true"});
  const std::string later = Submit(d, {"--", "true"});

  const RunResult hold = Tq(d, {"hold", held});
  CHECK_MESSAGE(hold.exit_code == 0, hold.err);
  CHECK(hold.out == held + " held\n");
  CHECK(Tq(d, {"hold", held}).out == held + " was already held\n");
  CHECK(TaskJson(d, held)["held"] == true);
  const auto listed = ListTasks(d, {"--state", "pending"});
  REQUIRE(listed.size() == 2);
  CHECK(listed[1]["waiting"]["held"] == true);
  CHECK(Tq(d, {"list"}).out.find("held") != std::string::npos);

  // A running task without stages has nothing left to hold.
  const RunResult running = Tq(d, {"hold", blocker});
  CHECK(running.exit_code == 2);
  CHECK(running.err == "tq: state: task " + blocker +
                           " is running and has no stages to hold; only a pending task (or the "
                           "next stage of a running one) can be held\n");

  // The slot frees: the younger task runs, the held one does not.
  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", blocker, later}).exit_code == 0);
  CHECK(TaskState(d, held) == "pending");

  // Held across a restart.
  d.Restart();
  CHECK(TaskJson(d, held)["held"] == true);
  CHECK(Tq(d, {"wait", Submit(d, {"--", "true"})}).exit_code == 0);
  CHECK(TaskState(d, held) == "pending");

  const RunResult release = Tq(d, {"release", "--label", "batch"});
  CHECK_MESSAGE(release.exit_code == 0, release.err);
  CHECK(release.out == held + " released\n");
  CHECK(Tq(d, {"wait", held}).exit_code == 0);
  CHECK(TaskJson(d, held)["held"] == false);

  const RunResult done = Tq(d, {"hold", held});
  CHECK(done.exit_code == 2);
  CHECK(done.err ==
        "tq: state: task " + held +
            " is succeeded; only a pending task (or the next stage of a running one) can be "
            "held\n");
  const RunResult none = Tq(d, {"hold", "--label", "no-such"});
  CHECK(none.exit_code == 0);
  CHECK(none.err == "tq: no task matches\n");
  CHECK(Tq(d, {"release"}).exit_code == 2);
}

TEST_CASE("a user updates and holds only their own pending tasks") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser alice, bob;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string alices = SubmitAs(d, alice, {"--delay", "1h", "--", "true"});
  const RunResult update = TqAs(d, bob.run_as(), {"update", alices, "-p", "1"});
  CHECK(update.exit_code == 4);
  const RunResult hold = TqAs(d, bob.run_as(), {"hold", alices});
  CHECK(hold.exit_code == 4);
  CHECK(TaskJson(d, alices)["held"] == false);
  CHECK(TqAs(d, alice.run_as(), {"hold", alices}).exit_code == 0);
  CHECK(TqAs(d, alice.run_as(), {"update", alices, "-p", "1"}).exit_code == 0);
  CHECK(TaskJson(d, alices)["priority"] == 1);
  CHECK(Tq(d, {"cancel", alices}).exit_code == 0);
}
