// Attempts the shared store holds as running on a host (issue 49, item 8): one this host never
// started (a claim whose commit the server kept, its answer lost) is pending again at the next
// poll; one that ended while the host's tqd was down is collected, never taken for such.
#include <string>

#include <doctest/doctest.h>

#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The first poll of the store after a restart used to come before the ends of adopted attempts
// were told, and started such a task again.
TEST_CASE("a task that ended while its host's tqd was down ran once, and is not run again") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon d("store = " + Quoted(uri) + "\nhost = \"a\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string ledger = d.dir() + "/ledger";
  const std::string id = Submit(d, {"--", "sh", "-c",
                                    "while [ ! -e " + Quoted(gate) +
                                        " ]; do sleep 0.05; done; echo ran >> " + Quoted(ledger)});
  REQUIRE(WaitState(d, id, "running"));

  d.Kill9();  // the task runs on under its supervisor, and ends while tqd is away
  WriteFile(gate, "");
  REQUIRE(WaitFor([&] { return ReadFile(ledger) == "ran\n"; }));
  d.Start();
  d.WaitReady();

  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  const nlohmann::json task = TaskJson(d, id);
  CHECK(task["state"] == "succeeded");
  CHECK(task["attempts"] == 1);
  CHECK(ReadFile(ledger) == "ran\n");
}

}  // namespace
