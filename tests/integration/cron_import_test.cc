// tq cron import (issue 11): a crontab from a file or stdin to TOML on stdout, the lines it cannot
// convert on stderr and in the exit code; the client alone, no daemon (the socket does not exist).
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kNoSocket = "/nonexistent/tq-cron-import-test.sock";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("tq cron import converts a crontab on stdin and exits 0") {
  const RunResult r = RunTq(kNoSocket, {"cron", "import"}, {},
                            "PATH=/usr/bin:/bin\n# nightly\n0 2 * * * /usr/bin/report%in\n");
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(Contains(r.out, "from standard input (a user crontab)"));
  CHECK(Contains(r.out, "# nightly\n[[job]]  # line 3\nname = \"report\"\n"));
  CHECK(Contains(r.out, "stdin = \"in\"\n"));
}

TEST_CASE("tq cron import reports each line it cannot convert and exits 1") {
  const RunResult r =
      RunTq(kNoSocket, {"cron", "import", "-"}, {}, "@daily ok\n61 * * * * bad\n* * *\n");
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "LINE 2: minute \"61\": 61 is out of range 0..59\n"
        "LINE 3: expected 5 time fields and a command, found 3 fields\n");
  CHECK(Contains(r.out, "name = \"ok\""));
  CHECK(Contains(r.out, "# line 2 NOT CONVERTED: minute \"61\""));
}

TEST_CASE("tq cron import reads a file and its user column with --system") {
  tq::TempDir dir("cron-import");
  const std::string path = dir.File("backup");
  std::ofstream(path) << "SHELL=/bin/bash\n30 3 * * * root /usr/sbin/backup\n";
  const RunResult system = RunTq(kNoSocket, {"cron", "import", "--system", path}, {});
  INFO(system.err);
  CHECK(system.exit_code == 0);
  CHECK(Contains(system.out, "user = \"root\"\n"));
  CHECK(Contains(system.out, "command = \"/usr/sbin/backup\"\n"));

  // Without --system, "root" is the start of the command, as cron would read it.
  const RunResult user = RunTq(kNoSocket, {"cron", "import", path}, {});
  CHECK(user.exit_code == 0);
  CHECK(Contains(user.out, "command = \"root /usr/sbin/backup\"\n"));
}

TEST_CASE("tq cron import refuses a file it cannot read with exit 2") {
  const RunResult r = RunTq(kNoSocket, {"cron", "import", "/nonexistent/crontab"}, {});
  CHECK(r.exit_code == 2);
  CHECK(Contains(r.err, "cannot read \"/nonexistent/crontab\""));
  CHECK(r.out.empty());
}
