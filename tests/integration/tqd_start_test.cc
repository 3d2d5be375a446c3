// Starting tqd where nothing was set up: a fresh account's defaults, and an installed tqd that
// finds its shim under the prefix it was configured with.
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support/skip.h"
#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Copies the built binary `name` into `dir` as an executable others may run.
std::string CopyBinary(const std::string& name, const std::string& dir) {
  const std::string copy = dir + "/" + name;
  WriteFile(copy, ReadFile(BinPath(name)));
  REQUIRE(chmod(copy.c_str(), 0755) == 0);
  return copy;
}

}  // namespace

TEST_CASE("tqd on a fresh account creates the missing parents of its default state directory") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) TQ_SKIP("needs root and a 'nobody' user");
  tq::TempDir tmp("fresh");
  const std::string root = tmp.path.string();
  REQUIRE(chmod(root.c_str(), 0711) == 0);
  const std::string bin = root + "/bin", home = root + "/home", run = root + "/run";
  for (const std::string& dir : {bin, home, run}) REQUIRE(mkdir(dir.c_str(), 0755) == 0);
  for (const std::string& dir : {home, run})
    REQUIRE(chown(dir.c_str(), pw->pw_uid, pw->pw_gid) == 0);
  REQUIRE(chmod(run.c_str(), 0700) == 0);
  const std::string tqd = CopyBinary("tqd", bin);
  CopyBinary("tq-shim", bin);
  const std::string tq = CopyBinary("tq", bin);
  // A new account: HOME exists and is empty; no XDG variables but the runtime directory.
  const std::vector<std::string> env = {"HOME=" + home, "XDG_RUNTIME_DIR=" + run,
                                        "XDG_STATE_HOME=", "XDG_CONFIG_HOME="};
  const RunAs nobody{pw->pw_uid, pw->pw_gid};
  Process daemon({tqd}, env, "", nobody);
  const std::string socket = run + "/tq/tq.sock";
  const bool up = WaitFor([&] {
    daemon.Pump(0);
    return access(socket.c_str(), F_OK) == 0;
  });
  INFO("tqd said: " << daemon.err());
  REQUIRE(up);
  Process ping({tq, "--socket", socket, "ping"}, env, "", nobody);
  CHECK(ping.Finish().exit_code == 0);
  struct stat st {};
  const std::string state = home + "/.local/state/tq";
  REQUIRE(stat(state.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
  CHECK(st.st_uid == pw->pw_uid);
  REQUIRE(stat((home + "/.local").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0700);
}

TEST_CASE("an installed tqd looks for its shim under the prefix it was configured with") {
  tq::TempDir tmp("installed");
  const std::string tqd = CopyBinary("tqd", tmp.path.string());  // no shim beside it
  Process help({tqd, "--help"}, {});
  const RunResult r = help.Finish();
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(TQ_SHIM_INSTALL_PATH) != std::string::npos);
}
