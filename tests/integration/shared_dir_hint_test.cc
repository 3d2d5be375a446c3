// Issue 48: no harmful hints. For a socket, state directory or metrics file in a directory others
// share by design (/tmp, a sticky directory, a system one), tqd suggested a chmod of it
// (`chmod 1755 /tmp`) that would break it for everyone; it now suggests a directory of its own.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/temp_user.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// tqd (a copy in `dir`, so another user may run it) started with `args` and DIR/tqd.toml holding
// `toml`; how it ended.
RunResult StartTqd(const std::string& dir, const std::vector<std::string>& args,
                   const std::string& toml = "", std::optional<RunAs> run_as = std::nullopt) {
  const std::string copy = dir + "/tqd";
  if (access(copy.c_str(), X_OK) != 0) {
    WriteFile(copy, ReadFile(BinPath("tqd")));
    REQUIRE(chmod(copy.c_str(), 0755) == 0);
  }
  WriteFile(dir + "/tqd.toml", toml);
  std::vector<std::string> argv = {copy, "--config", dir + "/tqd.toml"};
  argv.insert(argv.end(), args.begin(), args.end());
  Process p(argv, {}, "", run_as);
  return p.Finish();
}

// A socket name no other test uses.
std::string SocketName() {
  return "tq-hint-" + std::to_string(getpid()) + ".sock";
}

}  // namespace

TEST_CASE("shared dir hint: a socket in /tmp gets a directory of its own, not a chmod of /tmp") {
  tq::TempDir tmp("shared-dir");
  const std::string dir = tmp.path.string();
  const RunResult r =
      StartTqd(dir, {"--socket", "/tmp/" + SocketName(), "--state", dir + "/state"});
  INFO(r.err);
  CHECK(r.exit_code == 78);
  CHECK(r.err.find("chmod") == std::string::npos);
  CHECK(r.err.find("make a directory of its own: install -d -m 0755 /tmp/tq && tqd --socket "
                   "/tmp/tq/" +
                   SocketName()) != std::string::npos);
  CHECK(access(("/tmp/" + SocketName()).c_str(), F_OK) != 0);
}

TEST_CASE("shared dir hint: a socket in any sticky directory gets a directory of its own") {
  tq::TempDir tmp("shared-dir");
  const std::string dir = tmp.path.string(), shared = dir + "/shared";
  REQUIRE(mkdir(shared.c_str(), 0700) == 0);
  REQUIRE(chmod(shared.c_str(), 01777) == 0);
  const RunResult r = StartTqd(dir, {"--socket", shared + "/tq.sock", "--state", dir + "/state"});
  INFO(r.err);
  CHECK(r.exit_code == 78);
  CHECK(r.err.find("chmod") == std::string::npos);
  CHECK(r.err.find("install -d -m 0755 " + shared + "/tq && tqd --socket " + shared +
                   "/tq/tq.sock") != std::string::npos);

  // A directory of one's own that others may write is still fixed by a chmod of it.
  REQUIRE(chmod(shared.c_str(), 0777) == 0);
  const RunResult own = StartTqd(dir, {"--socket", shared + "/tq.sock", "--state", dir + "/state"});
  CHECK(own.exit_code == 78);
  CHECK_MESSAGE(own.err.find("chmod 0755 " + shared) != std::string::npos, own.err);
}

TEST_CASE("shared dir hint: a state directory or metrics file in /tmp gets one of its own") {
  tq::TempDir tmp("shared-dir");
  const std::string dir = tmp.path.string();
  REQUIRE(mkdir((dir + "/sock").c_str(), 0700) == 0);
  const RunResult state = StartTqd(dir, {"--socket", dir + "/sock/tq.sock", "--state", "/tmp"});
  INFO(state.err);
  CHECK(state.exit_code == 78);
  CHECK(state.err.find("chmod") == std::string::npos);
  CHECK(state.err.find("make a directory of its own: tqd --state /tmp/tq-state") !=
        std::string::npos);

  const RunResult metrics =
      StartTqd(dir, {"--socket", dir + "/sock/tq.sock", "--state", dir + "/state"},
               "metrics_textfile = \"/tmp/tq.prom\"\n");
  INFO(metrics.err);
  CHECK(metrics.exit_code == 78);
  CHECK(metrics.err.find("chmod") == std::string::npos);
  CHECK(metrics.err.find("make a directory of its own: install -d -m 0755 /tmp/tq-metrics && "
                         "metrics_textfile = \"/tmp/tq-metrics/tq.prom\"") != std::string::npos);
}

TEST_CASE("shared dir hint: another user's socket in /tmp gets a directory of its own") {
  if (!CanMakeUsers()) TQ_SKIP("needs root and useradd");
  TempUser user;
  tq::TempDir tmp("shared-dir");
  const std::string dir = tmp.path.string();
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  const RunResult r = StartTqd(dir, {"--socket", "/tmp/" + SocketName(), "--state", dir + "/state"},
                               "", user.run_as());
  INFO(r.err);
  CHECK(r.exit_code == 78);
  CHECK(r.err.find("/tmp is not a directory owned by uid " + std::to_string(user.uid())) !=
        std::string::npos);
  CHECK(r.err.find("make a directory of its own: install -d -m 0700 /tmp/tq && tqd --socket "
                   "/tmp/tq/" +
                   SocketName()) != std::string::npos);
}
