// Issue 48: over the per-user connection limit the client says so. tqd answers a 65th connection
// of one uid with an error frame and closes it; tq, whose request then met a closed socket
// (EPIPE), said "lost the connection to tqd: Broken pipe" (exit 6) in 7 calls of 8. It now reads
// the frame that waits and reports the limit (exit 2).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "support/raw_client.h"
#include "support/skip.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr int kPerUser = 64;  // the connections one user may hold (tqd(8))

}  // namespace

TEST_CASE("connection cap: over 64 connections of one user, each tq call names the limit") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser user;
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  REQUIRE(chmod(d.dir().c_str(), 0711) == 0);  // others may reach the socket (0666 as root)
  std::vector<std::unique_ptr<RawClient>> held;
  {
    EffectiveUid as(user.uid());
    for (int i = 0; i < kPerUser; ++i) held.push_back(std::make_unique<RawClient>(d.socket()));
  }
  // Each is admitted: a ping on the last is answered.
  REQUIRE(held.back()->SendFrame(R"({"proto":1,"type":"ping"})"));
  REQUIRE(held.back()->ReadFrame(kWaitTimeoutS).has_value());

  const std::string limit =
      "uid " + std::to_string(user.uid()) + " already has 64 connections open";
  for (int i = 0; i < 8; ++i) {
    for (const char* command : {"ping", "list"}) {
      CAPTURE(i);
      CAPTURE(command);
      const RunResult r = TqAs(d, user.run_as(), {command});
      INFO(r.err);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find(limit) != std::string::npos);
      CHECK(r.err.find("Broken pipe") == std::string::npos);
    }
  }
  held.clear();
  // With the connections closed the user is served again.
  CHECK(WaitFor([&] { return TqAs(d, user.run_as(), {"ping"}).exit_code == 0; }));
}
