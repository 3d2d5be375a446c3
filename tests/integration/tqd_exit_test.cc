// tqd's exit status at start, as tqd(8) says: 78 for a state or socket directory it cannot use.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Runs tqd from copies in `dir` (so another user may run them) on a state directory; returns
// how it ended.
RunResult StartDaemon(const std::string& dir, const std::string& state,
                      std::optional<RunAs> run_as = std::nullopt) {
  for (const char* bin : {"tqd", "tq-shim"}) {
    const std::string copy = dir + "/" + bin;
    if (access(copy.c_str(), X_OK) == 0) continue;
    WriteFile(copy, ReadFile(BinPath(bin)));
    REQUIRE(chmod(copy.c_str(), 0755) == 0);
  }
  WriteFile(dir + "/tqd.toml", "");
  Process p({dir + "/tqd", "--socket", dir + "/sock/tq.sock", "--state", state, "--config",
             dir + "/tqd.toml", "--shim", dir + "/tq-shim"},
            {}, "", run_as);
  return p.Finish();
}

}  // namespace

TEST_CASE("tqd exits 78 naming a state directory that is a file") {
  tq::TempDir tmp("tqd-exit");
  const std::string dir = tmp.path.string();
  REQUIRE(mkdir((dir + "/sock").c_str(), 0700) == 0);
  WriteFile(dir + "/state", "not a directory\n");
  const RunResult r = StartDaemon(dir, dir + "/state");
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(dir + "/state") != std::string::npos);
}

TEST_CASE("tqd exits 78 when an earlier daemon's state directory is no longer writable") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) TQ_SKIP("needs root and a 'nobody' user");
  tq::TempDir tmp("tqd-exit");
  const std::string dir = tmp.path.string();
  REQUIRE(chmod(dir.c_str(), 0755) == 0);
  REQUIRE(mkdir((dir + "/sock").c_str(), 0700) == 0);
  REQUIRE(chown((dir + "/sock").c_str(), pw->pw_uid, pw->pw_gid) == 0);
  // What a daemon of that user left (its lock file and task directory), in a directory that
  // then became read-only to it: the lock opens, the store cannot be created.
  const std::string state = dir + "/state";
  REQUIRE(mkdir(state.c_str(), 0755) == 0);
  REQUIRE(mkdir((state + "/tasks").c_str(), 0700) == 0);
  REQUIRE(chown((state + "/tasks").c_str(), pw->pw_uid, pw->pw_gid) == 0);
  WriteFile(state + "/tqd.lock", "");
  REQUIRE(chown((state + "/tqd.lock").c_str(), pw->pw_uid, pw->pw_gid) == 0);

  const RunResult r = StartDaemon(dir, state, RunAs{pw->pw_uid, pw->pw_gid});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find("state: cannot use " + state + ": Permission denied") != std::string::npos);
}

TEST_CASE("tqd exits 78 on a socket directory that others may write") {
  for (const mode_t mode : {0777, 01777, 0770, 0720}) {
    CAPTURE(mode);
    tq::TempDir tmp("tqd-exit");
    const std::string dir = tmp.path.string();
    REQUIRE(mkdir((dir + "/sock").c_str(), 0700) == 0);
    REQUIRE(chmod((dir + "/sock").c_str(), mode) == 0);
    const RunResult r = StartDaemon(dir, dir + "/state");
    CHECK(r.exit_code == 78);
    CHECK(r.err.find(dir + "/sock is writable by group or others") != std::string::npos);
    CHECK(access((dir + "/sock/tq.sock").c_str(), F_OK) != 0);  // nothing was bound there
  }
}

TEST_CASE(
    "tqd exits 78 on a state directory that group or others may read or write, creating "
    "nothing") {
  // Entering alone is allowed: the system daemon's state directory is 0711 (contexts, SPEC 13).
  for (const mode_t mode : {0755, 0750, 0704, 0707, 0770, 0702}) {
    CAPTURE(mode);
    tq::TempDir tmp("tqd-exit");
    const std::string dir = tmp.path.string(), state = dir + "/state";
    REQUIRE(mkdir((dir + "/sock").c_str(), 0700) == 0);
    REQUIRE(mkdir(state.c_str(), 0700) == 0);
    REQUIRE(chmod(state.c_str(), mode) == 0);
    const RunResult r = StartDaemon(dir, state);
    CHECK(r.exit_code == 78);
    char mode_text[8];
    std::snprintf(mode_text, sizeof mode_text, "%04o", mode);
    CHECK_MESSAGE(r.err.find("state: " + state +
                             " is readable or writable by group or others "
                             "(mode " +
                             mode_text + ")") != std::string::npos,
                  r.err);
    std::snprintf(mode_text, sizeof mode_text, "%04o", mode & 0711);
    CHECK(r.err.find(std::string("chmod ") + mode_text + " " + state) != std::string::npos);
    CHECK(access((state + "/tq.db").c_str(), F_OK) != 0);
  }
}
