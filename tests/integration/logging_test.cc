// How tqd logs (SPEC 11, tqd(8) LOGGING): `--log-level`, and for the journal (JOURNAL_STREAM
// naming its stderr) syslog priority prefixes instead of its own timestamps.
#include <regex>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Runs tqd with JOURNAL_STREAM naming its own stderr, as systemd sets it for a service whose
// output goes to the journal.
const std::vector<std::string> kAsJournal = {
    "/bin/sh", "-c", "JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) exec \"$@\"", "tqd"};

}  // namespace

TEST_CASE("tqd logs with its own timestamps when stderr is not the journal") {
  TestDaemon d;
  const std::vector<std::string> lines = FileLines(d.dir() + "/tqd.log");
  REQUIRE(!lines.empty());
  const std::regex stamped(
      R"(^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} (debug|info|warning|error) .*)");
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(std::regex_match(line, stamped));
  }
}

TEST_CASE("tqd logs to the journal with priority prefixes and no timestamps of its own") {
  TestDaemon d("", kAsJournal);
  TQ_LOG_ON_FAILURE(d);
  // A warning too: a job file that fails to load.
  d.WriteJobFile("bad.toml", "[[job]]\nname = 1\n");
  REQUIRE(Tq(d, {"reload"}).exit_code != 0);
  REQUIRE(WaitFor([&] { return d.Log().find("bad.toml") != std::string::npos; }));
  const std::vector<std::string> lines = FileLines(d.dir() + "/tqd.log");
  bool info = false, problem = false;
  const std::regex prefixed(R"(^<[2-7]>[^<\d].*)");
  for (const std::string& line : lines) {
    INFO(line);
    CHECK(std::regex_match(line, prefixed));
    CHECK(line.find(" info ") == std::string::npos);
    info = info || (line.rfind("<6>", 0) == 0 && line.find("listening on") != std::string::npos);
    problem = problem || ((line.rfind("<4>", 0) == 0 || line.rfind("<3>", 0) == 0) &&
                          line.find("bad.toml") != std::string::npos);
  }
  CHECK(info);
  CHECK(problem);
}

TEST_CASE("tqd --log-level keeps less severe messages out of the log") {
  TestDaemon d("", {}, {"--log-level", "warn"});
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--", "true"});
  REQUIRE(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(d.Log().find("listening on") == std::string::npos);
  CHECK(d.Log().find(" info ") == std::string::npos);
}

TEST_CASE("tqd --log-level refuses a level it does not know, naming the ones it does") {
  Process p({BinPath("tqd"), "--log-level", "loud", "--check-config"}, {});
  const RunResult r = p.Finish();
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("loud") != std::string::npos);
  CHECK(r.err.find("trace, debug, info, warn, error, critical, off") != std::string::npos);
}
