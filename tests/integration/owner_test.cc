// Every request is filtered by the peer's uid (SPEC 8): to another user a task's id answers
// "not found" (exit 4), so ids cannot be probed, and nothing of it can be changed.
#include <pwd.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

TEST_CASE("another user's task answers not found and cannot be touched") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) {
    TQ_SKIP("needs root and a 'nobody' user");
  }
  const RunAs nobody{pw->pw_uid, pw->pw_gid};
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "--", "true"});
  const RunResult ping = TqAs(d, nobody, {"ping"});
  REQUIRE_MESSAGE(ping.exit_code == 0, ping.err);  // the other user does reach the daemon

  for (const std::vector<std::string>& args : {std::vector<std::string>{"status", id},
                                               {"wait", id},
                                               {"cancel", id},
                                               {"logs", id},
                                               {"submit", "--after", id, "--", "true"}}) {
    CAPTURE(args[0]);
    const RunResult r = TqAs(d, nobody, args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find(id) != std::string::npos);
  }
  const RunResult list = TqAs(d, nobody, {"list", "--json"});
  CHECK(list.exit_code == 0);
  CHECK(list.out == "");
  CHECK(TaskState(d, id) == "pending");  // the refused cancel changed nothing
  CHECK(JsonLines(Tq(d, {"list", "--json"}).out).size() == 1);  // and no task was added
}
