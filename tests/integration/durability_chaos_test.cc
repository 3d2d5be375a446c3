// Chaos (SPEC 6, issue 4): 2,000 submits (500 in sanitizer builds) from 4 concurrent clients
// while tqd is killed with SIGKILL at random moments and started again. Every task appends its
// id to a file outside the state directory. At the end every id a client printed exists, every
// task is terminal, and no id ran twice unless its task had an attempt marked lost.
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/sanitized.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr int kClients = 4;
// Every tq, tqd and shim start costs many times more under AddressSanitizer (500 submits took
// 200 s alone, and past 600 s beside other tests, on the 2-core machine): a tenth of the
// submits keeps the test within a minute or two.
constexpr int kSubmitsPerClient = kSanitized ? 50 : 500;

bool Terminal(const std::string& state) {
  return state == "succeeded" || state == "failed" || state == "cancelled" || state == "expired";
}

}  // namespace

TEST_CASE("submits through random kill -9s of tqd: every printed id exists and ran once" *
          doctest::test_suite("long")) {
  TestDaemon d("max_running = 4\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string ran = d.dir() + "/ran";  // outside the state directory

  // A client prints each id it was given; a submit that failed because tqd was down (exit 6) is
  // tried again (it may or may not have been committed; only printed ids count). Any other
  // failure ends the client with exit 1.
  const std::string task = "echo $TQ_TASK_ID >> '" + ran + "'";
  const std::string client =
      "i=0; while [ $i -lt " + std::to_string(kSubmitsPerClient) +
      " ]; do id=$(\"$0\" --socket \"$1\" submit --retries 2 --backoff fixed --backoff-base 1s "
      "-- sh -c \"$2\"); rc=$?; if [ $rc -eq 0 ]; then echo \"$id\"; i=$((i+1)); "
      "elif [ $rc -eq 6 ]; then sleep 0.02; else echo \"submit exited $rc\" >&2; exit 1; fi; done";
  std::vector<std::unique_ptr<Process>> clients;
  for (int i = 0; i < kClients; ++i)
    clients.push_back(std::make_unique<Process>(
        std::vector<std::string>{"/bin/sh", "-c", client, BinPath("tq"), d.socket(), task},
        std::vector<std::string>{d.MarkEnv()}));

  // The chaos: pump the clients for a random 50-300 ms, kill -9 tqd, start it again, until every
  // client is done. One restart in three is not waited for, so clients meet tqd starting up and
  // some kills land during its start; the others wait until it answers, so the clients make
  // progress even where a start takes longer than the longest pause (a loaded machine, a
  // sanitizer build).
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pause_ms(50, 300);
  std::uniform_int_distribution<int> one_in_three(0, 2);
  int kills = 0, died_by_itself = 0;
  // Within ctest's 600 s, with room for the checks below.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(6);
  for (;;) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(pause_ms(rng));
    bool all_done = true;
    do {
      all_done = true;
      for (auto& c : clients) all_done = c->Pump(10) && all_done;
    } while (!all_done && std::chrono::steady_clock::now() < until);
    if (all_done) break;
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < give_up, "the clients made no progress");
    if (!d.Alive()) ++died_by_itself;
    d.Kill9();
    ++kills;
    d.Start();
    if (one_in_three(rng) != 0) d.WaitReady();
  }
  d.WaitReady();
  MESSAGE("tqd was killed " << kills << " times");
  CHECK(died_by_itself == 0);
  CHECK(kills > 0);

  std::vector<std::string> printed;
  for (auto& c : clients) {
    const RunResult r = c->Finish();
    CHECK_MESSAGE(r.exit_code == 0, "a client failed: " << r.err);
    std::istringstream lines(r.out);
    for (std::string id; lines >> id;) printed.push_back(id);
  }
  CHECK(printed.size() == static_cast<size_t>(kClients * kSubmitsPerClient));
  CHECK(std::set<std::string>(printed.begin(), printed.end()).size() == printed.size());

  // Every printed id exists, and every task (printed or not) ends.
  std::map<std::string, nlohmann::json> tasks;
  const bool all_terminal = WaitFor(
      [&] {
        tasks.clear();
        bool terminal = true;
        for (const nlohmann::json& t : ListTasks(d)) {
          tasks[std::to_string(t["id"].get<long long>())] = t;
          terminal = terminal && Terminal(t.value("state", ""));
        }
        return terminal;
      },
      180);
  CHECK(all_terminal);
  for (const std::string& id : printed)
    CHECK_MESSAGE(tasks.count(id) == 1, "task " << id << " is gone");

  // No id ran twice unless its task lost an attempt; a task that succeeded ran at least once;
  // no task ran more often than it had attempts.
  std::map<std::string, int> runs;
  std::istringstream lines(ReadFile(ran));
  for (std::string id; lines >> id;) ++runs[id];
  int lost_tasks = 0;
  for (const auto& [id, t] : tasks) {
    CAPTURE(id);
    const int n = runs.count(id) ? runs[id] : 0;
    if (t.value("state", "") == "succeeded") CHECK(n >= 1);
    if (n <= 1) continue;
    const nlohmann::json full = TaskJson(d, id);
    bool lost = false;
    for (const nlohmann::json& a : full["attempt_log"]) lost = lost || a["reason"] == "lost";
    lost_tasks += lost;
    CHECK_MESSAGE(
        lost, "task " << id << " ran " << n << " times without a lost attempt: " << full.dump());
    CHECK(static_cast<size_t>(n) <= full["attempt_log"].size());
  }
  MESSAGE(tasks.size() << " tasks (" << printed.size() << " printed), " << lost_tasks
                       << " ran more than once after a lost attempt");
}
