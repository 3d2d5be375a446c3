// tq jobs check FILE... (issue 11): job files checked by the client alone — these tests point tq
// at a socket that does not exist.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kNoCheckSocket = "/nonexistent/tq-jobs-check-test.sock";

RunResult JobsCheck(const std::vector<std::string>& args, bool json = false) {
  std::vector<std::string> full;
  if (json) full.push_back("--json");
  full.insert(full.end(), {"jobs", "check"});
  full.insert(full.end(), args.begin(), args.end());
  return RunTq(kNoCheckSocket, full, {});
}

std::string Write(const tq::TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

constexpr const char* kTwoJobs =
    "[defaults]\nschedule = \"@daily\"\n"
    "[[job]]\nname = \"a\"\ncommand = \"true\"\n"
    "[[job]]\nname = \"b\"\nargv = [\"/bin/true\"]\n";

}  // namespace

TEST_CASE("tq jobs check reports each good file and exits 0") {
  tq::TempDir dir("jobs-check");
  const std::string two = Write(dir, "two.toml", kTwoJobs);
  const std::string one =
      Write(dir, "one.toml", "[[job]]\nname = \"c\"\nschedule = \"@reboot\"\ncommand = \"x\"\n");
  const std::string none = Write(dir, "none.toml", "# nothing yet\n");
  const RunResult r = JobsCheck({two, one, none});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out == two + ": 2 jobs\n" + one + ": 1 job\n" + none + ": 0 jobs\n");
  CHECK(r.err.empty());
}

TEST_CASE("tq jobs check reports a bad file with its line and exits 2") {
  tq::TempDir dir("jobs-check");
  const std::string good = Write(dir, "good.toml", kTwoJobs);
  const std::string bad =
      Write(dir, "bad.toml", "[[job]]\nname = \"x\"\nschedule = \"@daily\"\ncomand = \"y\"\n");
  const RunResult r = JobsCheck({bad, good});
  CHECK(r.exit_code == 2);
  CHECK(r.out == good + ": 2 jobs\n");
  CHECK(r.err.rfind(bad + ":4: comand: unknown key (allowed in a [[job]]: name, schedule,", 0) ==
        0);
}

TEST_CASE("tq jobs check refuses a name used in two of the files") {
  tq::TempDir dir("jobs-check");
  const std::string first = Write(dir, "first.toml", kTwoJobs);
  const std::string second = Write(
      dir, "second.toml", "\n[[job]]\nname = \"b\"\nschedule = \"@hourly\"\ncommand = \"z\"\n");
  const RunResult r = JobsCheck({first, second});
  CHECK(r.exit_code == 2);
  CHECK(r.out == first + ": 2 jobs\n");
  CHECK(r.err == second + ":2: name: \"b\" is already the name of the job at " + first +
                     ":6 (names must be unique across the job files)\n");
}

TEST_CASE("tq jobs check refuses missing files directories and oversized files") {
  tq::TempDir dir("jobs-check");
  const std::string missing = dir.File("missing.toml");
  const std::string big = Write(dir, "big.toml", std::string(4 * 1024 * 1024 + 1, '#'));
  const RunResult r = JobsCheck({missing, dir.path.string(), big});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == missing + ": cannot open: No such file or directory\n" + dir.path.string() +
                     ": cannot read: Is a directory\n" + big +
                     ": the file is 4194305 bytes, over the limit of 4194304 bytes for a job "
                     "file\n");
}

TEST_CASE("tq jobs check --json gives one line per file") {
  tq::TempDir dir("jobs-check");
  const std::string good = Write(dir, "good.toml", kTwoJobs);
  const std::string bad = Write(dir, "bad.toml", "[[job]]\nname = 1\n");
  const RunResult r = JobsCheck({good, bad}, true);
  CHECK(r.exit_code == 2);
  CHECK(r.out == "{\"file\":\"" + good + "\",\"jobs\":[\"a\",\"b\"],\"ok\":true}\n{\"error\":\"" +
                     bad +
                     ":2: name: 1 is not a string (use 1 to 64 characters from A-Z a-z 0-9 "
                     "_ . -)\",\"file\":\"" +
                     bad + "\",\"ok\":false}\n");
}

TEST_CASE("tq jobs check needs a file") {
  const RunResult r = JobsCheck({});
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
}

TEST_CASE("tq jobs check refuses a name the running daemon has in force from another file") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("nightly.toml",
                 "[[job]]\nname = \"backup\"\nschedule = \"@daily\"\ncommand = \"true\"\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  tq::TempDir dir("jobs-check");
  const std::string other = Write(
      dir, "other.toml", "[[job]]\nname = \"backup\"\nschedule = \"@hourly\"\ncommand = \"x\"\n");
  const RunResult clash = Tq(d, {"jobs", "check", other});
  CHECK(clash.exit_code == 2);
  CHECK(clash.err == other + ":1: name: \"backup\" is already defined at " + d.jobs_dir() +
                         "/nightly.toml:1, in force in the daemon (job names are unique across "
                         "the job files)\n");
  // A new text of the same file replaces the jobs in force: no clash.
  const std::string next = Write(
      dir, "nightly.toml", "[[job]]\nname = \"backup\"\nschedule = \"@hourly\"\ncommand = \"x\"\n");
  const RunResult same = Tq(d, {"jobs", "check", next});
  CHECK(same.exit_code == 0);
  CHECK(same.out == next + ": 1 job\n");
}

TEST_CASE("tq jobs check without a daemon checks users here and says resources were not") {
  tq::TempDir dir("jobs-check");
  const std::string user = Write(dir, "user.toml",
                                 "[[job]]\nname = \"a\"\nschedule = \"@daily\"\n"
                                 "user = \"nosuchuser\"\ncommand = \"true\"\n");
  const RunResult bad_user = JobsCheck({user});
  CHECK(bad_user.exit_code == 2);
  CHECK(bad_user.out.empty());
  CHECK(bad_user.err == user +
                            ":4: user: \"nosuchuser\" is not in the password database (name an "
                            "existing user)\n");

  const std::string use = Write(dir, "use.toml",
                                "[[job]]\nname = \"b\"\nschedule = \"@daily\"\n"
                                "use = { tpu = 1 }\ncommand = \"true\"\n");
  const RunResult unchecked = JobsCheck({use});
  CHECK(unchecked.exit_code == 0);
  CHECK(unchecked.out == use + ": 1 job\n");
  CHECK(unchecked.err == std::string("tq: resources not checked: cannot reach tqd at ") +
                             kNoCheckSocket +
                             " (No such file or directory); is the daemon running?\n");
}

TEST_CASE("tq jobs check says what the running daemon says of users and resources") {
  TestDaemon d("[resources]\ngpu = 2\n");
  TQ_LOG_ON_FAILURE(d);
  // Each file as the daemon reads it: tq jobs check must refuse it with the reload's words.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"tpu.toml",
       "[[job]]\nname = \"t\"\nschedule = \"@daily\"\nuse = { tpu = 1 }\n"
       "command = \"true\"\n"},
      {"many.toml",
       "[[job]]\nname = \"m\"\nschedule = \"@daily\"\nuse = { gpu = 3 }\n"
       "command = \"true\"\n"},
      {"user.toml",
       "[[job]]\nname = \"u\"\nschedule = \"@daily\"\nuser = \"nosuchuser\"\n"
       "command = \"true\"\n"},
  };
  for (const auto& [name, text] : bad) d.WriteJobFile(name, text);
  const RunResult reload = Tq(d, {"reload"});
  REQUIRE(reload.exit_code == 2);
  for (const auto& [name, text] : bad) {
    CAPTURE(name);
    const std::string path = d.jobs_dir() + "/" + name;
    const RunResult check = Tq(d, {"jobs", "check", path});
    INFO("reload: " << reload.err);
    INFO("check: " << check.err);
    CHECK(check.exit_code == 2);
    CHECK(check.out.empty());
    REQUIRE(!check.err.empty());
    CHECK(check.err.rfind(path + ":", 0) == 0);
    // The reload adds what became of the file's jobs: "(none of its jobs are in force)".
    const std::string said = check.err.substr(0, check.err.size() - 1);
    CHECK(Contains(reload.err, "tq: reload: " + said + " ("));
  }
  // What the daemon has passes, and nothing is said to be unchecked.
  tq::TempDir dir("jobs-check");
  const std::string good = Write(dir, "good.toml",
                                 "[[job]]\nname = \"g\"\nschedule = \"@daily\"\nuser = \"root\"\n"
                                 "use = { gpu = 2 }\ncommand = \"true\"\n");
  const RunResult ok = Tq(d, {"jobs", "check", good});
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out == good + ": 1 job\n");
  CHECK(ok.err.empty());
}
