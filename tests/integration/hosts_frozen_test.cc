// A host frozen with SIGSTOP (a VM pause, a swap storm), perhaps inside a transaction, costs the
// other hosts of its PostgreSQL store nothing but the rows it holds (SPEC 12, issue 50): their
// submits and pings answer at once, the frozen host is fenced at its lease and no healthy host
// is, and every task ran once, or again only after an attempt lost with the frozen host.
#include <signal.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/pg_server.h"
#include "support/ran_once.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;
using tq::test::PgQueryInt;

namespace {

constexpr int kLeaseS = 6;

// tqd.toml for host `name` on `uri`: a short lease, and a default queue that runs anywhere.
std::string FrozenHost(const std::string& uri, const std::string& name) {
  return "store = " + Quoted(uri) + "\nhost = " + Quoted(name) +
         "\nmax_running = 4\nhost_lease = \"" + std::to_string(kLeaseS) +
         "s\"\n[queues.default]\nhosts = \"any\"\n";
}

// Sends SIGCONT to a stopped tqd however the test ends, so that it can be stopped.
struct Thaw {
  pid_t pid;
  ~Thaw() { kill(pid, SIGCONT); }
};

// True when the session of host `host` on the store at `uri` (the one holding its host lock) is
// inside a transaction, waiting for its client's next statement.
bool IdleInTransaction(const std::string& uri, const std::string& host) {
  return PgQueryInt(uri,
                    "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' "
                    "AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND "
                    "classid = 29810 AND objid::bigint = (hashtext(current_schema() || '/" +
                        host + "')::bigint + 4294967296) % 4294967296)") > 0;
}

// Milliseconds `call` took.
template <typename Call>
double TimedMs(Call&& call) {
  const auto t0 = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("hosts: a host frozen for 20 s keeps no other host waiting and only it is fenced" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  std::vector<std::unique_ptr<TestDaemon>> hosts;
  for (const std::string name : {"a", "b", "c"}) {
    hosts.push_back(std::make_unique<TestDaemon>(FrozenHost(uri, name)));
    TQ_LOG_ON_FAILURE(*hosts.back());
  }
  TestDaemon& a = *hosts[0];
  TestDaemon& b = *hosts[1];
  TestDaemon& c = *hosts[2];
  const std::string ledger = a.dir() + "/ledger";  // every run appends its task's id
  const std::vector<std::string> command = {"submit",
                                            "--retries",
                                            "5",
                                            "--backoff",
                                            "fixed",
                                            "--backoff-base",
                                            "200ms",
                                            "--",
                                            "sh",
                                            "-c",
                                            "echo $TQ_TASK_ID >> " + Quoted(ledger)};
  std::vector<std::string> ids;

  // c is kept busy with submits (transactions: submits, claims, ends) and stopped at random
  // points of it until it stops inside a transaction.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pause_ms(0, 30);
  std::vector<std::unique_ptr<Process>> burst;
  const pid_t frozen = c.DaemonPid();
  Thaw thaw{frozen};
  bool inside = false;
  for (int tries = 0; tries < 300 && !inside; ++tries) {
    if (tries > 0) REQUIRE(kill(frozen, SIGCONT) == 0);
    burst.push_back(TqBackground(c, command));
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    REQUIRE(kill(frozen, SIGSTOP) == 0);
    // A statement sent before the stop may still run: its end leaves the session waiting.
    inside = WaitFor([&] { return IdleInTransaction(uri, "c"); }, 0.2);
  }
  MESSAGE("c stopped inside a transaction after " << burst.size() << " submits to it");
  REQUIRE(inside);
  const auto stopped_at = std::chrono::steady_clock::now();

  // For 20 s the healthy hosts take a submit and a ping every 100 ms or so.
  double worst_submit_ms = 0, worst_ping_ms = 0;
  int submits = 0;
  bool fenced_seen = false;
  double fenced_after_s = 0;
  while (std::chrono::steady_clock::now() - stopped_at < std::chrono::seconds(20)) {
    TestDaemon& to = submits % 2 == 0 ? a : b;
    RunResult r;
    worst_submit_ms = std::max(worst_submit_ms, TimedMs([&] { r = Tq(to, command); }));
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    if (r.exit_code == 0) ids.push_back(r.out.substr(0, r.out.find('\n')));
    ++submits;
    RunResult ping;
    worst_ping_ms = std::max(worst_ping_ms, TimedMs([&] { ping = Tq(to, {"ping"}); }));
    CHECK(ping.exit_code == 0);
    if (!fenced_seen && PgQueryInt(uri, "SELECT beats FROM hosts WHERE name = 'c'") == -1) {
      fenced_seen = true;
      fenced_after_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped_at).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  MESSAGE(submits << " submits while c was frozen: worst " << worst_submit_ms << " ms, worst ping "
                  << worst_ping_ms << " ms; c fenced after " << fenced_after_s << " s");
  CHECK(fenced_seen);
  // Generous, for a loaded machine: a host that waited for the frozen one's rows would take
  // 10 s or more (the lock timeout, then the server ending the frozen session after 15 s).
  CHECK(worst_submit_ms < 5000);
  CHECK(worst_ping_ms < 5000);

  // c goes on, learns it was fenced and joins again; the burst's submits are answered.
  kill(frozen, SIGCONT);
  for (auto& p : burst) {
    RunResult r = p->Finish();
    if (r.exit_code == 0) ids.push_back(r.out.substr(0, r.out.find('\n')));
  }
  std::string id_list;
  for (const std::string& id : ids) id_list += (id_list.empty() ? "" : ", ") + id;
  const long long total = static_cast<long long>(ids.size());
  CHECK(WaitFor(
      [&] {
        return PgQueryInt(uri, "SELECT count(*) FROM tasks WHERE state = 'succeeded' AND id IN (" +
                                   id_list + ")") == total;
      },
      120));

  // No healthy host was fenced: they joined once and beat on.
  CHECK(PgQueryInt(uri,
                   "SELECT count(*) FROM hosts WHERE name IN ('a', 'b') AND epoch = 1 AND "
                   "beats >= 0") == 2);
  for (TestDaemon* h : {&a, &b, &c}) {
    CHECK(h->Log().find("host a was silent") == std::string::npos);
    CHECK(h->Log().find("host b was silent") == std::string::npos);
  }
  // The fencer says how long c was silent, on the store's clock: a lease at least, and about
  // when it was fenced.
  const std::string fencer_log = a.Log() + b.Log();
  const std::string said = "host c was silent for ";
  const size_t at = fencer_log.find(said);
  REQUIRE(at != std::string::npos);
  const long long silent_ms = std::stoll(fencer_log.substr(at + said.size()));
  MESSAGE("the fencer said c was silent for " << silent_ms << " ms");
  CHECK(silent_ms >= 6000);
  CHECK(silent_ms <= static_cast<long long>(fenced_after_s * 1000) + 3000);

  // Each ran once, or again only after an attempt lost with c.
  CheckRanOnceUnlessLost(uri, ledger, ids);
}
