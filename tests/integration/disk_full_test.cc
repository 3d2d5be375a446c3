// A full disk under a real tqd: the state directory on a small tmpfs, filled to the last byte,
// then submits (several at once, so they share group commits) until the store refuses them.
// Every submit is either acknowledged and still there after a restart, or refused with an error
// that says the disk is full and absent; reads go on; once space returns, submits work again.
// A job's overdue alert that the store could not record goes out once space returns.
// A stage that fills the disk has its end stored once space returns, and the next stage runs.
// With tasks falling due on a full disk, tqd idles and answers: the turns that cannot be stored
// wait a growing pause (up to 10 s) and warn once per 10 s.
// Mounting needs root (CI runs as root); elsewhere the test reports as skipped.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/cpu_ticks.h"
#include "support/jobs.h"
#include "support/skip.h"
#include "support/test_daemon.h"
#include "support/tmpfs.h"

using namespace tqtest;

namespace {
// Writes `path` until the file system has no byte left.
void FillUp(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  REQUIRE(fd >= 0);
  const std::string chunk(64 * 1024, 'f');
  for (size_t n = chunk.size(); n > 0;) {
    const ssize_t w = write(fd, chunk.data(), n);
    if (w < 0 && errno == ENOSPC) {
      if (n == 1) break;
      n /= 2;  // finish the last pages in smaller pieces
      continue;
    }
    REQUIRE(w > 0);
  }
  close(fd);
}

// Lines of `log` that say the store is full.
size_t FullLines(const std::string& log) {
  size_t n = 0;
  for (size_t at = log.find("disk is full"); at != std::string::npos;
       at = log.find("disk is full", at + 1))
    ++n;
  return n;
}
}  // namespace

TEST_CASE("a full disk: each submit is acknowledged and kept, or refused and absent") {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  Tmpfs fs(d.state_dir(), "2m");
  d.Start();
  d.WaitReady();
  // Fill the disk, then free a little: some submits still fit, the ones after do not.
  const std::string slack = d.state_dir() + "/slack";
  WriteFile(slack, std::string(256 * 1024, 's'));
  const std::string filler = d.state_dir() + "/filler";
  FillUp(filler);
  REQUIRE(unlink(slack.c_str()) == 0);

  std::set<std::string> acknowledged;
  int refused = 0;
  const std::string payload(8 * 1024, 'p');
  for (int round = 0; round < 100 && refused < 8; ++round) {
    std::vector<std::unique_ptr<Process>> submits;
    for (int i = 0; i < 4; ++i)
      submits.push_back(TqBackground(d, {"submit", "--delay", "1h", "--", "true", payload}));
    for (auto& p : submits) {
      const RunResult r = p->Finish();
      if (r.exit_code == 0) {
        acknowledged.insert(r.out.substr(0, r.out.find('\n')));
      } else {
        ++refused;
        CHECK_MESSAGE(r.err.find("full") != std::string::npos, r.err);
      }
    }
  }
  MESSAGE(acknowledged.size() << " submits acknowledged, " << refused << " refused");
  CHECK_FALSE(acknowledged.empty());  // the space left took some
  REQUIRE(refused > 0);               // the disk did fill up

  // Reads keep working while it is full.
  CHECK(ListTasks(d).size() == acknowledged.size());
  for (const std::string& id : acknowledged) CHECK(TaskState(d, id) == "pending");

  // Space returns: submits work again.
  REQUIRE(unlink(filler.c_str()) == 0);
  acknowledged.insert(Submit(d, {"--delay", "1h", "--", "true", payload}));

  // What was acknowledged is there after a restart, and nothing else.
  d.Restart();
  std::set<std::string> stored;
  for (const nlohmann::json& t : ListTasks(d)) stored.insert(std::to_string(t["id"].get<long>()));
  CHECK(stored == acknowledged);
}

TEST_CASE("a full disk while a job fires every second: tqd stays up and firing resumes" *
          doctest::test_suite("long")) {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "true", {"misfire = \"skip\""}));
  d.Stop();
  Tmpfs fs(d.state_dir(), "4m");
  d.Start();
  d.WaitReady();
  REQUIRE(WaitFor([&] { return !JobRuns(d, "tick").empty(); }));

  const std::string filler = d.state_dir() + "/filler";
  FillUp(filler);
  // Firings fail for want of space, are logged, and are tried again; the daemon answers.
  REQUIRE(WaitFor([&] { return d.Log().find("not made yet") != std::string::npos; }));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  CHECK(JobJson(d, "tick").is_object());

  REQUIRE(unlink(filler.c_str()) == 0);
  const size_t before = JobRuns(d, "tick").size();
  REQUIRE(WaitFor([&] { return JobRuns(d, "tick").size() >= before + 2; }));
  CHECK(d.Alive());
}

TEST_CASE("a full disk when a job becomes overdue: its alert is sent once space returns" *
          doctest::test_suite("long")) {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string alerts = d.dir() + "/alerts";  // outside the full file system
  const auto watched = [&](const std::string& within) {
    return JobFile("watched", "@yearly", "true",
                   {"expect_success_within = \"" + within + "\"",
                    "on_failure = " + nlohmann::json("echo $TQ_STATE >> '" + alerts + "'").dump()});
  };
  d.WriteJobFile("watched.toml", watched("100d"));
  d.Stop();
  Tmpfs fs(d.state_dir(), "4m");
  d.Start();
  d.WaitReady();
  REQUIRE(JobJson(d, "watched").is_object());  // seen, so its stretch has begun

  // The job is overdue at once, while the store cannot record its alert: nothing goes out.
  const std::string filler = d.state_dir() + "/filler";
  FillUp(filler);
  d.WriteJobFile("watched.toml", watched("1s"));
  Tq(d, {"reload"});
  REQUIRE(WaitFor(
      [&] { return d.Log().find("its overdue alert is not recorded") != std::string::npos; }));
  CHECK(ReadFile(alerts).empty());

  // Space returns: the check is made again by itself, and the alert goes out once.
  REQUIRE(unlink(filler.c_str()) == 0);
  REQUIRE(WaitFor([&] { return ReadFile(alerts) == "overdue\n"; }, 120));
  CHECK(d.Alive());
}

TEST_CASE("a stage that fills the disk in its context: its end is kept until space returns") {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  Tmpfs fs(d.state_dir(), "4m");
  d.Start();
  d.WaitReady();
  const std::string log = d.dir() + "/log";  // outside the full file system
  const std::string id = Submit(
      d, {"--stage", "fill", "--shell",
          "head -c 8M /dev/zero > \"$TQ_CONTEXT/big\"; echo fill >> " + Quoted(log), "--stage",
          "next", "--shell", "[ -d \"$TQ_CONTEXT\" ] && echo next >> " + Quoted(log)});
  // The first stage ends with the disk full: its end cannot be stored and is tried again.
  REQUIRE(WaitFor([&] { return d.Log().find("not stored") != std::string::npos; }));
  CHECK(Tq(d, {"ping"}).exit_code == 0);
  CHECK(FileLines(log) == std::vector<std::string>{"fill"});
  REQUIRE(unlink((d.state_dir() + "/contexts/u0/" + id + "/big").c_str()) == 0);
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(FileLines(log) == std::vector<std::string>{"fill", "next"});
  CHECK(TaskJson(d, id)["attempt_log"].size() == 2);
}

TEST_CASE("a full disk with tasks falling due: tqd idles, answers and warns once per 10 s" *
          doctest::test_suite("long")) {
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.Stop();
  Tmpfs fs(d.state_dir(), "12m");
  d.Start();
  d.WaitReady();
  // One task falls due on the full disk, another's retry does: both need a turn stored.
  const std::string due = Submit(d, {"--delay", "2s", "--", "true"});
  const std::string retried = Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base",
                                         "2s", "--no-jitter", "--", "false"});
  REQUIRE(WaitFor([&] { return TaskJson(d, retried)["attempt_log"].size() == 1; }));
  FillUp(d.state_dir() + "/filler");
  REQUIRE(WaitFor([&] { return FullLines(d.Log()) > 0; }));

  // Ten seconds of it: tqd answers every ping, uses little processor time, and warns at most
  // once per 10 s (the first line may fall just inside the stretch).
  const pid_t tqd = d.DaemonPid();
  const long long cpu0 = CpuTicks(tqd);
  const size_t lines0 = FullLines(d.Log());
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double worst_ping = 0;
  while (elapsed() < 10) {
    const double before = elapsed();
    CHECK(Tq(d, {"ping"}).exit_code == 0);
    worst_ping = std::max(worst_ping, elapsed() - before);
    WaitFor([&] { return elapsed() - before >= 0.2; });  // a ping every 200 ms
  }
  const double seconds = elapsed();
  const long long cpu = CpuTicks(tqd) - cpu0;
  const size_t lines = FullLines(d.Log()) - lines0;
  MESSAGE("over " << seconds << " s of a full disk: " << cpu << " ticks of processor time, "
                  << lines << " log line(s) of it, worst ping " << worst_ping * 1000 << " ms");
  CHECK(cpu < 3 * sysconf(_SC_CLK_TCK));  // a spinning tqd used all of it
  CHECK(lines <= 2);
  CHECK(TaskState(d, due) == "pending");

  // Space returns: both run within the longest pause.
  REQUIRE(unlink((d.state_dir() + "/filler").c_str()) == 0);
  CHECK(WaitState(d, due, "succeeded"));
  CHECK(WaitState(d, retried, "failed"));
  CHECK(TaskJson(d, retried)["attempt_log"].size() == 2);
  CHECK(d.Log().find("the store takes writes again") != std::string::npos);
}

TEST_CASE("a full disk never fails a task that never ran: it waits pending, saying why") {
  // The store has room and the files of attempts have none (their directory on a full tmpfs of
  // its own): the shim cannot write its first record and starts nothing.
  if (geteuid() != 0) TQ_SKIP("needs root to mount a small tmpfs");
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string attempts = d.state_dir() + "/attempts";
  REQUIRE(WaitFor([&] { return access(attempts.c_str(), F_OK) == 0; }));
  Tmpfs fs(attempts, "1m");
  const std::string filler = attempts + "/filler";
  FillUp(filler);

  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(Submit(d, {"--", "echo", "ran"}));
  // Tried while the disk is full, a task is pending again with no attempt used, and says why;
  // the others wait for the pause too (with max_running 2 the third may not be tried yet).
  REQUIRE(WaitFor([&] {
    const nlohmann::json t = TaskJson(d, ids[0]);
    return t.contains("waiting") && t["waiting"].value("not_started", nlohmann::json()).is_string();
  }));
  CHECK(TaskJson(d, ids[0])["waiting"]["not_started"].get<std::string>().find("disk is full") !=
        std::string::npos);
  REQUIRE(WaitFor([&] { return d.Log().find("was not started") != std::string::npos; }));
  // Each try claims a task for a moment (running, its attempt open) before it is undone, so
  // what follows is looked for between tries, which grow apart (0.1 s, doubling to 10 s).
  for (const std::string& id : ids)
    CHECK_MESSAGE(WaitFor([&] {
                    const nlohmann::json t = TaskJson(d, id);
                    return t["state"] == "pending" && t["attempt_log"].empty();
                  }),
                  TaskJson(d, id).dump());
  RunResult list;
  CHECK_MESSAGE(WaitFor([&] {
                  list = Tq(d, {"list"});
                  return list.out.find("not started: the state directory's disk is full") !=
                         std::string::npos;
                }),
                list.out);
  CHECK(ListTasks(d, {"--state", "failed"}).empty());

  // Space returns: each runs once, as its first attempt.
  REQUIRE(unlink(filler.c_str()) == 0);
  for (const std::string& id : ids) {
    CHECK(WaitState(d, id, "succeeded"));
    const nlohmann::json t = TaskJson(d, id);
    REQUIRE(t["attempt_log"].size() == 1);
    CHECK(t["attempt_log"][0]["number"] == 1);
    CHECK_FALSE(t.contains("waiting"));
  }
  CHECK(Tq(d, {"logs", ids[0]}).out == "ran\n");
}
