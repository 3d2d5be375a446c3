// tq loads the C library and nothing else (issue 51); what needs cctz or toml++ (tq cron next and
// import, tq jobs check, tq submit --stages FILE) runs in tq-full, which tq runs in its own place
// with its own arguments. A tq without its tq-full names it and changes nothing.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/sanitized.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// What `ldd PATH` lists.
std::string SharedLibraries(const std::string& path) {
  Process ldd({"/usr/bin/ldd", path}, {});
  const RunResult r = ldd.Finish();
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out;
}

// A copy of tq alone, without the tq-full (and tq-web) beside it, in `dir`.
std::string LoneTq(const std::string& dir) {
  const std::string copy = dir + "/lone/tq";
  REQUIRE(mkdir((dir + "/lone").c_str(), 0755) == 0);
  WriteFile(copy, ReadFile(BinPath("tq")));
  REQUIRE(chmod(copy.c_str(), 0755) == 0);
  return copy;
}

}  // namespace

TEST_CASE("tq loads the C library alone, tq-full loads cctz and toml++") {
  const std::string tq = SharedLibraries(BinPath("tq"));
  INFO(tq);
  for (const char* heavy : {"libcctz", "libtomlplusplus", "libmicrohttpd", "libgnutls",
                            "libsqlite3", "libpq", "libsystemd"})
    CHECK_FALSE(Contains(tq, heavy));
  if (!kSanitized) CHECK_FALSE(Contains(tq, "libstdc++"));  // the sanitizers need it shared
  const std::string full = SharedLibraries(BinPath("tq-full"));
  CHECK(Contains(full, "libcctz"));
  CHECK(Contains(full, "libtomlplusplus"));
}

TEST_CASE("what needs cctz or toml++ runs in tq-full, in tq's place, with tq's arguments") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  // A zone's DST change (cctz), a job file and a stages file (toml++), through tq.
  const RunResult next = Tq(d, {"cron", "next", "30 2 * * *", "--tz", "Europe/Berlin", "--from",
                                "2026-03-28T12:00", "--count", "1"});
  CHECK(next.exit_code == 0);
  CHECK(next.out == "2026-03-29T03:00:00+02:00\n");
  const std::string jobs = d.dir() + "/nightly.toml";
  WriteFile(jobs, "[[job]]\nname = \"nightly\"\nschedule = \"0 3 * * *\"\ncommand = \"true\"\n");
  const RunResult check = Tq(d, {"jobs", "check", jobs});
  CHECK(check.exit_code == 0);
  CHECK(check.out == jobs + ": 1 job\n");
  // The stages from standard input: tq hands over before it reads any.
  const RunResult submitted =
      Tq(d, {"submit", "--stages", "-"},
         "[[stages]]\nname = \"one\"\ncommand = \"true\"\n[[stages]]\nname = \"two\"\n"
         "command = \"true\"\n");
  REQUIRE_MESSAGE(submitted.exit_code == 0, submitted.err);
  const RunResult waited = Tq(d, {"wait", submitted.out.substr(0, submitted.out.find('\n'))});
  CHECK(waited.exit_code == 0);
  // A refusal comes from tq-full as tq would give it: exit 2, named.
  const RunResult bad = Tq(d, {"cron", "next", "61 * * * *"});
  CHECK(bad.exit_code == 2);
  CHECK(Contains(bad.err, "minute"));
}

TEST_CASE("a tq without its tq-full says so, exits 1 and submits nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string installed =
      std::string(TQ_SHIM_INSTALL_PATH).substr(0, std::string(TQ_SHIM_INSTALL_PATH).rfind('/')) +
      "/tq-full";
  if (access(installed.c_str(), F_OK) == 0) TQ_SKIP(installed + " is installed: tq runs it");
  const std::string tq = LoneTq(d.dir());
  const std::string stages = d.dir() + "/stages.toml";
  WriteFile(stages, "[[stages]]\nname = \"one\"\ncommand = \"true\"\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"cron", "next", "0 3 * * *"},
        std::vector<std::string>{"submit", "--stages", stages}}) {
    std::vector<std::string> argv = {tq, "--socket", d.socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, {d.MarkEnv()});
    const RunResult r = p.Finish();
    CHECK(r.exit_code == 1);
    CHECK(r.out == "");
    CHECK(r.err ==
          "tq: cannot run " + installed + ": No such file or directory (tq-full comes with tq)\n");
  }
  const RunResult list = Tq(d, {"list", "--json"});
  CHECK(list.exit_code == 0);
  CHECK(list.out == "");
}
