// Several hosts under chaos (SPEC 12): four clients submit to three tqd on one PostgreSQL while
// hosts are killed with -9 (some down past the lease, so the others fence them and rescue their
// attempts) and PostgreSQL restarts once. Every submit a host acknowledged ends succeeded, and
// each task's command ran once, or again only after an attempt lost with its host.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/pg_server.h"
#include "support/ran_once.h"
#include "support/sanitized.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;
using tq::test::PgQueryInt;

namespace {

// Submits per client: fewer where every start of tq costs many times more.
constexpr int kHostSubmitsPerClient = kSanitized ? 100 : 500;
constexpr int kHostClients = 4;

// tqd.toml for host `name` on `uri`: a short lease, and a default queue that runs anywhere.
std::string ChaosHost(const std::string& uri, const std::string& name) {
  return "store = " + Quoted(uri) + "\nhost = " + Quoted(name) +
         "\nmax_running = 4\nhost_lease = \"3s\"\n[queues.default]\nhosts = \"any\"\n";
}

}  // namespace

TEST_CASE("hosts: 4 clients submit to 3 hosts under kill -9s and a PostgreSQL restart" *
          doctest::test_suite("long")) {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  tq::test::PgServer* server = tq::test::PgServer::Get(&why);
  REQUIRE(server != nullptr);
  std::vector<std::unique_ptr<TestDaemon>> hosts;
  for (const std::string name : {"a", "b", "c"}) {
    hosts.push_back(std::make_unique<TestDaemon>(ChaosHost(uri, name)));
    TQ_LOG_ON_FAILURE(*hosts.back());
  }
  const std::string ledger = hosts[0]->dir() + "/ledger";  // every run appends its task's id
  const std::vector<std::string> command = {"submit",
                                            "--retries",
                                            "20",
                                            "--backoff",
                                            "fixed",
                                            "--backoff-base",
                                            "200ms",
                                            "--",
                                            "sh",
                                            "-c",
                                            "echo $TQ_TASK_ID >> " + Quoted(ledger)};

  // The clients: each submit goes to the next host, and to the others while it is refused (its
  // host is down); an id is kept only once a host acknowledged it.
  std::mutex mu;
  std::vector<std::string> acknowledged;
  std::atomic<int> unacknowledged{0};
  std::atomic<int> clients_left{kHostClients};
  std::vector<std::thread> clients;
  for (int c = 0; c < kHostClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kHostSubmitsPerClient; ++i) {
        bool done = false;
        for (int tries = 0; tries < 100 && !done; ++tries) {
          const RunResult r = Tq(*hosts[(c + i + tries) % hosts.size()], command);
          if (r.exit_code != 0) {  // that host is down, or the store is: the next one, soon
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            continue;
          }
          std::string id = r.out.substr(0, r.out.find('\n'));
          std::lock_guard<std::mutex> lock(mu);
          acknowledged.push_back(std::move(id));
          done = true;
        }
        if (!done) ++unacknowledged;
      }
      --clients_left;
    });
  }

  // The chaos, while the clients submit: a random host killed with -9 every 1 to 3 seconds and
  // started again at once or after a pause past the lease, and PostgreSQL restarted once.
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<size_t> pick(0, hosts.size() - 1);
  std::uniform_int_distribution<int> pause_ms(1000, 3000);
  int kills = 0;
  bool restarted = false;
  while (clients_left > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));  // the chaos's pace
    if (kills == 3 && !restarted) {
      REQUIRE_MESSAGE(server->Restart() == "", "PostgreSQL did not start again");
      restarted = true;
      continue;
    }
    TestDaemon& victim = *hosts[pick(rng)];
    victim.Kill9();
    ++kills;
    if (kills % 3 == 0) std::this_thread::sleep_for(std::chrono::seconds(4));  // fenced
    victim.Start();
    victim.WaitReady();
  }
  for (std::thread& t : clients) t.join();
  if (!restarted) REQUIRE_MESSAGE(server->Restart() == "", "PostgreSQL did not start again");
  MESSAGE(acknowledged.size() << " submits acknowledged, " << unacknowledged.load()
                              << " never were; hosts killed " << kills << " times");
  CHECK(unacknowledged == 0);

  // Every acknowledged task ends succeeded.
  REQUIRE_FALSE(acknowledged.empty());
  std::string id_list;
  for (const std::string& id : acknowledged) id_list += (id_list.empty() ? "" : ", ") + id;
  const long long total = static_cast<long long>(acknowledged.size());
  const std::string succeeded =
      "SELECT count(*) FROM tasks WHERE state = 'succeeded' AND id IN (" + id_list + ")";
  CHECK(WaitFor([&] { return PgQueryInt(uri, succeeded) == total; }, 300));
  CHECK(PgQueryInt(uri,
                   "SELECT count(*) FROM tasks WHERE state NOT IN ('succeeded', "
                   "'pending', 'running') AND id IN (" +
                       id_list + ")") == 0);

  MESSAGE(PgQueryInt(uri, "SELECT count(*) FROM attempts WHERE reason = 'lost'")
          << " attempts were lost with their hosts");

  // Each ran once, or again only after an attempt lost with its host.
  CheckRanOnceUnlessLost(uri, ledger, acknowledged);
}
