// `tqd --check-config` and tqd's start on a bad tqd.toml (SPEC 11, tqd(8)): tqd.toml and every
// job file checked as the daemon reads them, exit 78 with FILE:LINE: reason on the first error.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A tqd.toml and a jobs directory in a temporary directory, and tqd run on them.
struct ConfigDir {
  tq::TempDir tmp{"check-config"};
  std::string dir = tmp.path.string();

  ConfigDir() { REQUIRE(mkdir(Jobs().c_str(), 0755) == 0); }
  std::string Jobs() const { return dir + "/jobs.d"; }
  std::string Config() const { return dir + "/tqd.toml"; }
  void WriteConfig(const std::string& toml) const {
    WriteFile(Config(), "jobs_dir = " + Quoted(Jobs()) + "\n" + toml);
  }
  void WriteJob(const std::string& name, const std::string& toml) const {
    WriteFile(Jobs() + "/" + name, toml);
    REQUIRE(chmod((Jobs() + "/" + name).c_str(), 0644) == 0);
  }
  // tqd with `args` on this directory's socket, state and config.
  RunResult Tqd(std::vector<std::string> args) const {
    std::vector<std::string> argv = {BinPath("tqd"), "--socket", dir + "/tq.sock", "--state",
                                     dir + "/state", "--config", Config()};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, {});
    return p.Finish();
  }
};

const char* kGoodJobs = R"(
[[job]]
name = "nightly"
schedule = "15 2 * * *"
command = "true"

[[job]]
name = "hourly"
schedule = "@hourly"
command = "true"
)";

}  // namespace

TEST_CASE("tqd --check-config: good tqd.toml and job files exit 0 and say what was checked") {
  ConfigDir c;
  c.WriteConfig("max_running = 4\n");
  c.WriteJob("a.toml", kGoodJobs);
  c.WriteJob("b.toml", "[[job]]\nname = \"weekly\"\nschedule = \"@weekly\"\ncommand = \"true\"\n");
  const RunResult r = c.Tqd({"--check-config"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "configuration ok: 2 job file(s) with 3 job(s)\n");
  // Nothing was started: no socket, no store.
  CHECK(access((c.dir + "/tq.sock").c_str(), F_OK) != 0);
  CHECK(access((c.dir + "/state/tq.db").c_str(), F_OK) != 0);
}

TEST_CASE("tqd --check-config: a bad tqd.toml exits 78 with its file and line") {
  ConfigDir c;
  c.WriteConfig("max_running = 4\nmax_runing = 5\n");
  const RunResult r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Config() + ":3:") != std::string::npos);
  CHECK(r.err.find("max_runing") != std::string::npos);
  CHECK(r.out.empty());
}

TEST_CASE("tqd --check-config: bad job files exit 78 with every error's file, line and reason") {
  ConfigDir c;
  c.WriteConfig("");
  c.WriteJob("a.toml", kGoodJobs);
  c.WriteJob("b.toml", "[[job]]\nname = \"x\"\nschedule = \"61 * * * *\"\ncommand = \"true\"\n");
  c.WriteJob("c.toml", "[[job]]\nname = \"y\"\nschedul = \"@daily\"\ncommand = \"true\"\n");
  const RunResult r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Jobs() + "/b.toml:3:") != std::string::npos);
  CHECK(r.err.find(c.Jobs() + "/c.toml:3: schedul:") != std::string::npos);  // one pass
}

TEST_CASE("tqd --check-config: what only the daemon can check is checked too") {
  ConfigDir c;
  c.WriteConfig("");
  SUBCASE("a job name defined in two files") {
    c.WriteJob("a.toml", kGoodJobs);
    c.WriteJob("b.toml", "\n[[job]]\nname = \"hourly\"\nschedule = \"@daily\"\ncommand = \"x\"\n");
    const RunResult r = c.Tqd({"--check-config"});
    CHECK(r.exit_code == 78);
    CHECK(r.err.find(c.Jobs() + "/b.toml:2: name:") != std::string::npos);
  }
  SUBCASE("a time zone the system does not have") {
    c.WriteJob("a.toml",
               "[[job]]\nname = \"z\"\nschedule = \"@daily\"\ncommand = \"true\"\n"
               "timezone = \"Mars/Olympus_Mons\"\n");
    const RunResult r = c.Tqd({"--check-config"});
    CHECK(r.exit_code == 78);
    CHECK(r.err.find(c.Jobs() + "/a.toml:5: timezone:") != std::string::npos);
    CHECK(r.err.find("Mars/Olympus_Mons") != std::string::npos);
  }
  SUBCASE("a user the password database does not know") {
    c.WriteJob("a.toml",
               "[[job]]\nname = \"u\"\nschedule = \"@daily\"\ncommand = \"true\"\n"
               "user = \"no-such-user-tq\"\n");
    const RunResult r = c.Tqd({"--check-config"});
    CHECK(r.exit_code == 78);
    CHECK(r.err.find("no-such-user-tq") != std::string::npos);
  }
}

TEST_CASE("tqd exits 78 at start on a bad tqd.toml, with its file and line, and serves nothing") {
  ConfigDir c;
  c.WriteConfig("\n[queues.cron]\nconcurrency = -1\n");
  const RunResult r = c.Tqd({});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Config() + ":4:") != std::string::npos);
  CHECK(access((c.dir + "/tq.sock").c_str(), F_OK) != 0);
}

TEST_CASE(
    "tqd --check-config: TOML syntax errors in tqd.toml and job files are told in plain words") {
  ConfigDir c;
  c.WriteConfig("max_running 4\n");
  RunResult r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Config() +
                   ":2: a key is not followed by = and a value (write key = value, e.g. "
                   "max_running = 4; quote a key holding spaces)") != std::string::npos);
  CHECK(r.err.find("Error while parsing") == std::string::npos);

  c.WriteConfig("socket = \"/run/tq.sock\n");
  r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Config() + ":2: a string is not closed: its closing \" is missing on this " +
                   "line") != std::string::npos);

  c.WriteConfig("max_running = 4\nmax_running = 5\n");
  r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Config() + ":3: max_running: defined a second time") != std::string::npos);

  // A job file's syntax error reads the same way.
  c.WriteConfig("");
  c.WriteJob("a.toml", "[[job]]\nname \"nightly\"\n");
  r = c.Tqd({"--check-config"});
  CHECK(r.exit_code == 78);
  CHECK(r.err.find(c.Jobs() + "/a.toml:2: a key is not followed by = and a value") !=
        std::string::npos);
  CHECK(r.err.find("Error while parsing") == std::string::npos);
}

TEST_CASE("tqd --check-config and the start warn of user and group names that are no account") {
  ConfigDir c;
  c.WriteConfig(
      "admin_group = \"tq-no-such-group\"\ndeny_users = [\"root\", \"tq-no-such-user\"]\n");
  const RunResult r = c.Tqd({"--check-config"});
  INFO(r.err);
  CHECK(r.exit_code == 0);  // accounts may be made later: a warning, not an error
  CHECK(r.out == "configuration ok: 0 job file(s) with 0 job(s)\n");
  const std::string group_warning =
      c.Config() + ":2: admin_group: no group \"tq-no-such-group\" exists (a misspelling?";
  const std::string user_warning =
      c.Config() + ":3: deny_users: no user \"tq-no-such-user\" exists (a misspelling?";
  CHECK(r.err.find(group_warning) != std::string::npos);
  CHECK(r.err.find(user_warning) != std::string::npos);
  CHECK(r.err.find("\"root\"") == std::string::npos);

  // The daemon says the same at its start, and starts.
  TestDaemon d("admin_group = \"tq-no-such-group\"\n");
  TQ_LOG_ON_FAILURE(d);
  CHECK(d.Log().find(d.dir() + "/tqd.toml:2: admin_group: no group \"tq-no-such-group\" exists") !=
        std::string::npos);
}
