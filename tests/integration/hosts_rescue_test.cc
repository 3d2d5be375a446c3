// Several tqd on one PostgreSQL store (SPEC 12, tqd.toml(5) host_lease): a host killed with -9
// or stopped past its lease is fenced by a live host, which ends its running attempt as lost and
// retries it; the fenced host records nothing over the rescue and kills its copy of the task as
// soon as it sees the store again.
#include <doctest/doctest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// tqd.toml for host `host` on `uri`, with a short lease, whose default queue runs anywhere (a
// rescued task is retried on any host).
std::string HostConfig(const std::string& uri, const std::string& host) {
  return "store = " + Quoted(uri) + "\nhost = " + Quoted(host) +
         "\nhost_lease = \"3s\"\n[queues.default]\nhosts = \"any\"\n";
}

// A command that, on its first run, writes its pid to `mark` and sleeps; on a later run (the
// mark exists) prints "second" and succeeds.
std::vector<std::string> FirstRunSleeps(const std::string& mark) {
  const std::string m = Quoted(mark);
  return {"--retries",
          "1",
          "--backoff",
          "fixed",
          "--backoff-base",
          "100ms",
          "--",
          "sh",
          "-c",
          "if [ -e " + m + " ]; then echo second; exit 0; fi; echo $$ > " + m + ".new && mv " + m +
              ".new " + m + " && exec sleep 600"};
}

// The pid the first run wrote to `mark`, once it has.
pid_t FirstRunPid(const std::string& mark) {
  std::string text;
  REQUIRE(WaitFor([&] {
    text = ReadFile(mark);
    return !text.empty();
  }));
  return static_cast<pid_t>(std::stol(text));
}

// Checks, through `d`, that task `id` was rescued from host `from` and succeeded on host `to`.
void CheckRescued(TestDaemon& d, const std::string& id, const std::string& from,
                  const std::string& to) {
  const nlohmann::json t = TaskJson(d, id);
  CHECK(t["state"] == "succeeded");
  CHECK(t["attempts"] == 2);
  REQUIRE(t["attempt_log"].size() == 2);
  const nlohmann::json& lost = t["attempt_log"][0];
  CHECK(lost["reason"] == "lost");
  CHECK(lost["host"] == from);
  CHECK(lost["detail"] == "lost with host " + from + ", silent past host_lease");
  CHECK(t["attempt_log"][1]["host"] == to);
}

// Host b running the first run of a task, then host a beside it, on one fresh schema.
struct TwoHosts {
  explicit TwoHosts(const std::string& uri)
      : since(std::chrono::steady_clock::now()),
        b(HostConfig(uri, "b")),
        mark(b.dir() + "/first"),
        id(Submit(b, FirstRunSleeps(mark))),
        first(FirstRunPid(mark)),
        a(HostConfig(uri, "a")) {}

  const std::chrono::steady_clock::time_point since;  ///< before the first run started
  TestDaemon b;
  const std::string mark;
  const std::string id;
  const pid_t first;  ///< the first run's process, on b's machine
  TestDaemon a;
};

}  // namespace

TEST_CASE("hosts: a host killed with -9 has its task rescued after the lease, then killed there" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TwoHosts h(uri);
  TQ_LOG_ON_FAILURE(h.b);
  TQ_LOG_ON_FAILURE(h.a);
  h.b.Kill9();  // its shim and the task run on
  const auto ran_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - h.since)
                          .count();
  REQUIRE(WaitFor([&] { return TaskJson(h.a, h.id)["state"] == "succeeded"; }, 60));
  CheckRescued(h.a, h.id, "b", "a");
  // The lost attempt ends at b's last heartbeat, not at the rescue a lease (3 s) later: its
  // time is at most how long it ran before the kill, and a heartbeat's interval (1 s).
  const nlohmann::json lost = TaskJson(h.a, h.id)["attempt_log"][0];
  CHECK(lost["duration_ms"].get<int64_t>() <= ran_ms + 1500);
  // tq status tells each attempt's host.
  const RunResult shown = Tq(h.a, {"status", h.id});
  CAPTURE(shown.out);
  CHECK(WordsOfRow(shown.out, "#").at(1) == "HOST");
  CHECK(WordsOfRow(shown.out, "1").at(1) == "b");
  CHECK(WordsOfRow(shown.out, "2").at(1) == "a");
  CHECK(Tq(h.a, {"logs", h.id}).out == "second\n");  // the output stays on the host that ran it
  CHECK(h.a.Log().find("host b was silent for") != std::string::npos);
  CHECK_FALSE(ProcessGone(h.first));  // b's machine still runs the first copy

  // b comes back: it kills that copy and records nothing over the rescue.
  h.b.Start();
  h.b.WaitReady();
  CHECK(WaitFor([&] { return ProcessGone(h.first); }));
  CHECK(h.b.Log().find("passed to another host, yet it still ran here") != std::string::npos);
  CheckRescued(h.b, h.id, "b", "a");
  const std::string next = Submit(h.b, {"--", "true"});
  CHECK(Tq(h.b, {"wait", next}).exit_code == 0);
}

TEST_CASE("hosts: a host stopped past its lease is fenced: it records nothing and kills its copy" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TwoHosts h(uri);
  TQ_LOG_ON_FAILURE(h.b);
  TQ_LOG_ON_FAILURE(h.a);
  const pid_t tqd_b = h.b.DaemonPid();
  REQUIRE(kill(tqd_b, SIGSTOP) == 0);
  const bool rescued = WaitFor([&] { return TaskJson(h.a, h.id)["state"] == "succeeded"; }, 60);
  REQUIRE(kill(tqd_b, SIGCONT) == 0);
  REQUIRE(rescued);
  CheckRescued(h.a, h.id, "b", "a");

  // Running again, b finds at its next heartbeat that it was fenced.
  CHECK(WaitFor([&] { return ProcessGone(h.first); }));
  CHECK(WaitFor(
      [&] { return h.b.Log().find("host b was fenced by another host") != std::string::npos; }));
  CheckRescued(h.a, h.id, "b", "a");
  // The killed copy's end is not recorded, as expected of it: said once, and not as an error.
  const std::string not_recorded = "task " + h.id + " attempt 1: its end here is not recorded";
  CHECK(WaitFor([&] { return h.b.Log().find(not_recorded) != std::string::npos; }));
  const std::string b_log = h.b.Log();
  CHECK(b_log.find(not_recorded) == b_log.rfind(not_recorded));
  CHECK(b_log.find("error task " + h.id + " attempt 1") == std::string::npos);
  // It joined again and runs work as before.
  const std::string next = Submit(h.b, {"--", "true"});
  CHECK(Tq(h.b, {"wait", next}).exit_code == 0);
}
