// Cron with no leader (SPEC 12): three tqd on one PostgreSQL store load the same job, firing
// every second; each firing is a row unique on (job, scheduled time), made with its task in one
// transaction, so whichever host commits first makes the run and the others find it made. Under
// random kill -9s of the hosts every firing makes one run, and each run's command ran once unless
// its attempt was lost with its host.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/jobs.h"
#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

using tq::test::PgQueryInt;

namespace {

// How long the firings and kills go on: 25 seconds in the suite, or TQ_TEST_CRON_CHAOS_SECONDS
// (the 180, say) for a longer run by hand.
std::chrono::seconds ChaosLength() {
  const char* env = std::getenv("TQ_TEST_CRON_CHAOS_SECONDS");
  const int seconds = env != nullptr ? std::atoi(env) : 0;
  return std::chrono::seconds(seconds > 0 ? seconds : 25);
}

}  // namespace

TEST_CASE("hosts: a job on three hosts makes one run per firing through random kill -9s" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const std::vector<std::string> names = {"a", "b", "c"};
  std::vector<std::unique_ptr<TestDaemon>> hosts;
  for (const std::string& name : names) {
    hosts.push_back(std::make_unique<TestDaemon>(
        "store = " + Quoted(uri) + "\nhost = " + Quoted(name) + "\nhost_lease = \"3s\"\n"));
    TQ_LOG_ON_FAILURE(*hosts.back());
  }
  const std::string ran = hosts[0]->dir() + "/ran";  // every host's runs append here
  const std::string job = JobFile("tick", "* * * * * *", "echo $TQ_TASK_ID >> " + Quoted(ran),
                                  {"overlap = \"allow\"", "misfire = \"run_all\""});
  for (auto& h : hosts) {
    h->WriteJobFile("tick.toml", job);
    Reload(*h);
  }

  // ChaosLength() of firings, killing a random host with -9 every 1 to 3 seconds and starting it
  // again at once or after a pause past the lease (the others then fence it).
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<size_t> pick(0, hosts.size() - 1);
  std::uniform_int_distribution<int> pause_ms(1000, 3000);
  const auto until = std::chrono::steady_clock::now() + ChaosLength();
  int kills = 0;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));  // the chaos's pace
    TestDaemon& victim = *hosts[pick(rng)];
    victim.Kill9();
    ++kills;
    if (kills % 3 == 0) {  // down past the lease: a live host fences it
      std::this_thread::sleep_for(std::chrono::seconds(4));
    }
    victim.Start();
    victim.WaitReady();
  }
  MESSAGE("hosts were killed " << kills << " times");

  // Every host stops firing; each run ends.
  for (auto& h : hosts) REQUIRE(Tq(*h, {"jobs", "disable", "tick"}).exit_code == 0);
  REQUIRE(WaitFor(
      [&] {
        for (const nlohmann::json& t : JobRuns(*hosts[0], "tick"))
          if (t["state"] != "succeeded" && t["state"] != "failed") return false;
        return true;
      },
      120));

  // Each run came from one firing, each firing made at most one run, and every host made runs.
  const long long runs = PgQueryInt(uri, "SELECT count(*) FROM tasks WHERE job = 'tick'");
  MESSAGE(runs << " runs");
  CHECK(runs >= 10);
  CHECK(PgQueryInt(uri,
                   "SELECT count(*) FROM job_firings WHERE job = 'tick' AND task_id IS NOT "
                   "NULL") == runs);
  CHECK(PgQueryInt(uri, "SELECT count(DISTINCT task_id) FROM job_firings WHERE job = 'tick'") ==
        runs);
  CHECK(PgQueryInt(uri,
                   "SELECT count(*) FROM tasks t WHERE job = 'tick' AND NOT EXISTS (SELECT 1 "
                   "FROM job_firings f WHERE f.task_id = t.id)") == 0);
  CHECK(PgQueryInt(uri,
                   "SELECT count(DISTINCT a.host) FROM attempts a JOIN tasks t ON t.id = "
                   "a.task_id WHERE t.job = 'tick'") >= 2);

  // Each run's command ran once, or again only after an attempt lost with its host.
  std::map<std::string, int> times;
  std::istringstream lines(ReadFile(ran));
  for (std::string id; lines >> id;) ++times[id];
  for (const auto& [id, n] : times) {
    if (n == 1) continue;
    const nlohmann::json t = TaskJson(*hosts[0], id);
    int lost = 0;
    for (const nlohmann::json& a : t["attempt_log"]) lost += a["reason"] == "lost";
    CHECK_MESSAGE(n <= lost + 1, "task " << id << " ran " << n << " times: " << t.dump());
  }
  CHECK(static_cast<long long>(times.size()) == runs);
}

// Each host anchored an @every job's grid at its own load time, so that after a reload on each
// the job fired once per host per interval (issue 50).
TEST_CASE("hosts: an @every job reloaded and re-enabled on every host and killed keeps one grid" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  std::vector<std::unique_ptr<TestDaemon>> hosts;
  for (const std::string name : {"a", "b", "c"}) {
    hosts.push_back(std::make_unique<TestDaemon>(
        "store = " + Quoted(uri) + "\nhost = " + Quoted(name) + "\nhost_lease = \"3s\"\n"));
    TQ_LOG_ON_FAILURE(*hosts.back());
  }
  const std::string job = JobFile("beat", "@every 2s", "true", {"overlap = \"allow\""});
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pause_ms(100, 900);
  for (auto& h : hosts) {  // the README's way to add a job, a host at a time
    h->WriteJobFile("beat.toml", job);
    Reload(*h);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
  }
  // For 14 s a random host reloads, disables and enables the job, or is killed with -9 and
  // started again.
  std::uniform_int_distribution<size_t> pick(0, hosts.size() - 1);
  std::uniform_int_distribution<int> action(0, 2);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(14);
  int actions = 0;
  while (std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    TestDaemon& h = *hosts[pick(rng)];
    switch (action(rng)) {
      case 0:
        Reload(h);
        break;
      case 1:
        REQUIRE(Tq(h, {"jobs", "disable", "beat"}).exit_code == 0);
        std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
        REQUIRE(Tq(*hosts[pick(rng)], {"jobs", "enable", "beat"}).exit_code == 0);
        break;
      default:
        h.Kill9();
        h.Start();
        h.WaitReady();
    }
    ++actions;
  }
  REQUIRE(Tq(*hosts[0], {"jobs", "disable", "beat"}).exit_code == 0);
  MESSAGE(actions << " reloads, re-enables and kill -9s");

  // Every firing that made a run is a time of one grid, two seconds apart, and made one run.
  const std::string fired = "FROM job_firings WHERE job = 'beat' AND task_id IS NOT NULL";
  const long long firings = PgQueryInt(uri, "SELECT count(*) " + fired);
  MESSAGE(firings << " firings made runs");
  CHECK(firings >= 2);  // fewer while it is disabled often
  CHECK(PgQueryInt(uri, "SELECT count(DISTINCT scheduled % 2000) " + fired) == 1);
  CHECK(PgQueryInt(uri, "SELECT count(*) FROM tasks WHERE job = 'beat'") == firings);
}

TEST_CASE("hosts: tq jobs show and tq list --label through any host tell which host ran a job") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a("store = " + Quoted(uri) + "\nhost = \"a\"\n");
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b("store = " + Quoted(uri) + "\nhost = \"b\"\n");
  TQ_LOG_ON_FAILURE(b);
  const std::string job = JobFile("nightly", "0 3 * * *", "true");
  for (TestDaemon* d : {&a, &b}) {
    d->WriteJobFile("nightly.toml", job);
    Reload(*d);
  }
  const RunResult run = Tq(a, {"jobs", "run", "nightly"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  REQUIRE(Tq(a, {"wait", id}).exit_code == 0);
  const std::string host = TaskJson(a, id)["attempt_log"].back()["host"].get<std::string>();
  const RunResult show = Tq(b, {"jobs", "show", "nightly"});
  REQUIRE_MESSAGE(show.exit_code == 0, show.err);
  CHECK_MESSAGE(show.out.find(id + " (on host " + host + ")") != std::string::npos, show.out);
  const RunResult list = Tq(b, {"list", "--label", "job:nightly"});
  REQUIRE_MESSAGE(list.exit_code == 0, list.err);
  std::istringstream lines(list.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK(header.find("HOST") != std::string::npos);
  CHECK_MESSAGE(row.rfind(id + " ", 0) == 0, list.out);
  CHECK_MESSAGE(row.find(" " + host + " ") != std::string::npos, list.out);
}
