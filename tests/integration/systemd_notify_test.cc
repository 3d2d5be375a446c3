// tqd as a Type=notify service (SPEC 11, tqd(8) SYSTEMD): READY=1 once its socket accepts,
// STATUS with its counts, RELOADING=1 and READY=1 around a SIGHUP reload, STOPPING=1 on SIGTERM,
// and WATCHDOG=1 at half of WATCHDOG_USEC, all sent to the datagram socket NOTIFY_SOCKET names,
// as systemd's would receive them.
#include <signal.h>
#include <unistd.h>

#include <chrono>

#include <doctest/doctest.h>

#include "support/notify_socket.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Whether `msg` starts with `prefix`.
bool Starts(const std::string& msg, const std::string& prefix) {
  return msg.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("tqd tells systemd it is ready, its counts, reloads, the watchdog and its stop") {
  tq::TempDir tmp("notify");
  const std::string path = tmp.File("notify.sock");
  NotifySocket manager(path);
  TestDaemon d("max_running = 1\n",
               {"/usr/bin/env", "NOTIFY_SOCKET=" + path, "WATCHDOG_USEC=400000"});
  TQ_LOG_ON_FAILURE(d);

  // READY=1 comes once tq can connect (the harness waited for a ping), with the first status.
  CHECK(manager.WaitExact("READY=1") == "READY=1");
  CHECK(manager.WaitExact("STATUS=0 running, 0 pending") != "");
  // The keep-alive repeats.
  CHECK(manager.WaitExact("WATCHDOG=1") != "");
  CHECK(manager.WaitExact("WATCHDOG=1") != "");

  // A running task and one waiting behind it (max_running 1) show in the status.
  const std::string gate = d.dir() + "/gate";
  const std::string running =
      Submit(d, {"--shell", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done; env"});
  const std::string waiting = Submit(d, {"--", "true"});
  CHECK(manager.WaitExact("STATUS=1 running, 1 pending") != "");
  WriteFile(gate, "");
  REQUIRE(Tq(d, {"wait", running, waiting}).exit_code == 0);
  CHECK(manager.WaitExact("STATUS=0 running, 0 pending") != "");
  // Nothing of the daemon's own environment reaches a task.
  const RunResult out = Tq(d, {"logs", running});
  CHECK(out.out.find("NOTIFY_SOCKET") == std::string::npos);
  CHECK(out.out.find("WATCHDOG_") == std::string::npos);

  // A reload: RELOADING=1 with the monotonic time, then READY=1 again.
  REQUIRE(kill(d.DaemonPid(), SIGHUP) == 0);
  const std::string reloading =
      manager.WaitFor([](const std::string& m) { return Starts(m, "RELOADING=1\n"); });
  CHECK(reloading.find("\nMONOTONIC_USEC=") != std::string::npos);
  CHECK(manager.WaitExact("READY=1") == "READY=1");

  d.Stop();
  CHECK(manager.WaitExact("STOPPING=1") == "STOPPING=1");
}

TEST_CASE("tqd sends nothing and arms no watchdog when the service has none") {
  tq::TempDir tmp("notify-none");
  const std::string path = tmp.File("notify.sock");
  NotifySocket manager(path);
  TestDaemon d("", {"/usr/bin/env", "NOTIFY_SOCKET=" + path});
  TQ_LOG_ON_FAILURE(d);
  CHECK(manager.WaitExact("READY=1") == "READY=1");
  const std::string id = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  d.Stop();
  CHECK(manager.WaitExact("STOPPING=1") == "STOPPING=1");
  for (const std::string& m : manager.seen()) CHECK(m != "WATCHDOG=1");
}

TEST_CASE("a notification socket that is gone is a warning, and tqd serves on") {
  tq::TempDir tmp("notify-gone");
  const auto start = std::chrono::steady_clock::now();
  TestDaemon d(
      "", {"/usr/bin/env", "NOTIFY_SOCKET=" + tmp.File("missing.sock"), "WATCHDOG_USEC=100000"});
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  REQUIRE(WaitFor([&] { return d.Log().find("sd_notify") != std::string::npos; }));
  // Let many keep-alives (every 50 ms) fail: the log says so once a minute, not each time.
  const std::string waiter = Submit(d, {"--", "sleep", "1"});
  REQUIRE(Tq(d, {"wait", waiter}).exit_code == 0);
  size_t lines = 0;
  for (const std::string& line : FileLines(d.dir() + "/tqd.log"))
    lines += line.find("sd_notify") != std::string::npos;
  const auto minutes =
      std::chrono::duration_cast<std::chrono::minutes>(std::chrono::steady_clock::now() - start)
          .count();
  CHECK(lines >= 1);
  CHECK(lines <= static_cast<size_t>(1 + minutes));
}
