// PostgreSQL restarted under two hosts (SPEC 12): each tqd loses its connections, and the next
// store call connects again (a lost connection is a transient fault, as a full disk is). Tasks
// that ran through the restart end once, as they ended; every submit a client saw acknowledged
// is kept and runs; both hosts stay live.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/pg_proxy.h"
#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Submits `argv` through `d` until tqd acknowledges it (a submit that meets the store down is
// refused, and a client tries again); its id.
std::string SubmitAcknowledged(TestDaemon& d, const std::vector<std::string>& argv) {
  std::vector<std::string> args = {"submit"};
  args.insert(args.end(), argv.begin(), argv.end());
  RunResult r;
  CHECK(WaitFor([&] {
    r = Tq(d, args);
    return r.exit_code == 0;
  }));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out.substr(0, r.out.find('\n'));
}

}  // namespace

TEST_CASE("hosts: PostgreSQL restarted mid-run: hosts reconnect, tasks go on, none is lost") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const auto config = [&](const std::string& host) {
    return "store = " + Quoted(uri) + "\nhost = " + Quoted(host) + "\nmax_running = 2\n";
  };
  TestDaemon a(config("a"));
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b(config("b"));
  TQ_LOG_ON_FAILURE(b);

  // Tasks running on both hosts, each waiting at a gate past the restart.
  const std::string gate = a.dir() + "/gate";
  const std::vector<std::string> waits = {
      "--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done; echo done"};
  std::vector<std::string> running;
  for (int i = 0; i < 4; ++i) running.push_back(Submit(i % 2 ? b : a, waits));
  REQUIRE(WaitFor([&] {
    for (const std::string& id : running)
      if (TaskJson(a, id)["state"] != "running") return false;
    return true;
  }));

  tq::test::PgServer* server = tq::test::PgServer::Get(&why);
  REQUIRE(server != nullptr);
  REQUIRE_MESSAGE(server->Restart() == "", "PostgreSQL did not start again");

  // Through either host, submits are acknowledged again; the running tasks end as they end.
  std::vector<std::string> after;
  for (int i = 0; i < 6; ++i) after.push_back(SubmitAcknowledged(i % 2 ? a : b, {"--", "true"}));
  WriteFile(gate, "");
  for (const std::string& id : running) {
    CHECK(Tq(b, {"wait", id}).exit_code == 0);
    const nlohmann::json t = TaskJson(a, id);
    CHECK(t["state"] == "succeeded");
    CHECK(t["attempts"] == 1);  // never lost: it ran on through the restart
  }
  for (const std::string& id : after) CHECK(Tq(a, {"wait", id}).exit_code == 0);
  for (TestDaemon* d : {&a, &b}) {
    const RunResult hosts = Tq(*d, {"hosts", "--json"});
    REQUIRE(hosts.exit_code == 0);
    for (const nlohmann::json& h : nlohmann::json::parse(hosts.out)["hosts"])
      CHECK_MESSAGE(h["state"] == "live", h.dump());
  }
}

// Issue 49: right after a restart of PostgreSQL, `tq submit` failed with "terminating connection
// due to administrator command", and a `tq wait` started while the server could not be reached
// exited at once (125) while its own message said "trying again within 713 ms". tqd runs a
// statement that met an ended connection again on a new one, and wait, logs -f and cancel ask
// again while tqd's store fails in a way trying again may help.
TEST_CASE(
    "a store that blinks: a submit right after goes through, wait, logs -f and cancel ride it "
    "out") {
  std::string why;
  const std::string direct = tq::test::FreshSchemaUri(&why);
  if (direct.empty()) TQ_SKIP(why);
  tq::test::PgServer* server = tq::test::PgServer::Get(&why);
  REQUIRE(server != nullptr);
  // The same schema through a relay that can cut and refuse connections.
  tq::test::PgProxy proxy(server->Socket());
  TestDaemon d("store = " + Quoted(proxy.Through(direct)) + "\nhost = \"a\"\n");
  TQ_LOG_ON_FAILURE(d);

  // The server ends tqd's connection (a restart): the next submit goes through at once.
  proxy.Cut();
  const RunResult first = Tq(d, {"submit", "--", "true"});
  CHECK_MESSAGE(first.exit_code == 0, first.err);

  const std::string gate = d.dir() + "/gate";
  const std::string id = Submit(
      d, {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done; echo done"});
  const std::string doomed = Submit(d, {"--", "sleep", "600"});
  REQUIRE(WaitState(d, id, "running"));
  REQUIRE(WaitState(d, doomed, "running"));

  // Now the server cannot be reached at all for a while.
  proxy.Refuse(true);
  proxy.Cut();
  std::unique_ptr<Process> wait = TqBackground(d, {"wait", id});
  std::unique_ptr<Process> logs = TqBackground(d, {"logs", "-f", id});
  std::unique_ptr<Process> cancel = TqBackground(d, {"cancel", doomed});
  int refused = 0;
  for (int tries = 0; tries < 200 && refused < 3; ++tries)
    refused += Tq(d, {"status", id}).exit_code != 0;
  REQUIRE(refused == 3);
  CHECK_FALSE(wait->Pump(0));  // still asking
  CHECK_FALSE(logs->Pump(0));
  CHECK_FALSE(cancel->Pump(0));

  proxy.Refuse(false);
  const RunResult cancelled = cancel->Finish(60);
  CHECK_MESSAGE(cancelled.exit_code == 0, cancelled.err);
  WriteFile(gate, "");
  const RunResult waited = wait->Finish(60);
  CHECK_MESSAGE(waited.exit_code == 0, waited.err);
  const RunResult followed = logs->Finish(60);
  CHECK_MESSAGE(followed.exit_code == 0, followed.err);
  CHECK(followed.out.find("done") != std::string::npos);
  CHECK(TaskJson(d, doomed)["state"] == "cancelled");
}
