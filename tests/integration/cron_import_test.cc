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
  // Converted as cron reads it, with a warning: a "%" is cron's best-known trap.
  CHECK(r.err ==
        "tq: <stdin>:3: warning: an unescaped \"%\" ends the command: the rest of the line is "
        "its standard input, as cron does (write \\% for a literal %)\n");
  CHECK(Contains(r.out, "from standard input (a user crontab)"));
  CHECK(Contains(r.out, "# nightly\n[[job]]  # line 3\nname = \"report\"\n"));
  CHECK(Contains(r.out, "stdin = \"in\"\n"));
}

TEST_CASE("tq cron import reports each line it cannot convert and exits 1") {
  const RunResult r =
      RunTq(kNoSocket, {"cron", "import", "-"}, {}, "@daily ok\n61 * * * * bad\n* * *\n");
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "tq: <stdin>:2: minute \"61\": 61 is out of range 0..59\n"
        "tq: <stdin>:3: expected 5 time fields and a command, found 3 fields\n");
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

  // Without --system: every entry names an account, so it is read as a system crontab.
  const RunResult user = RunTq(kNoSocket, {"cron", "import", path}, {});
  CHECK(user.exit_code == 0);
  CHECK(user.err == "tq: " + path +
                        ": warning: read as a system crontab (--system): every entry names an "
                        "account after its schedule, as /etc/crontab and /etc/cron.d do\n");
  CHECK(Contains(user.out, "user = \"root\"\n"));
  CHECK(Contains(user.out, "command = \"/usr/sbin/backup\"\n"));
}

TEST_CASE("tq cron import of a system crontab on stdin makes the right jobs, or says why not") {
  // All entries name an account: a system crontab, said so.
  const RunResult system =
      RunTq(kNoSocket, {"cron", "import"}, {}, "0 2 * * * root /usr/bin/backup\n");
  INFO(system.err);
  CHECK(system.exit_code == 0);
  CHECK(Contains(system.err, "tq: <stdin>: warning: read as a system crontab"));
  CHECK(Contains(system.out, "user = \"root\"\n"));
  CHECK(Contains(system.out, "command = \"/usr/bin/backup\"\n"));
  CHECK_FALSE(Contains(system.out, "name = \"root\""));

  // Only some: those lines are problems, named, and exit 1.
  const RunResult mixed = RunTq(kNoSocket, {"cron", "import"}, {},
                                "0 1 * * * /usr/bin/report\n0 2 * * * root /usr/bin/backup\n");
  CHECK(mixed.exit_code == 1);
  CHECK(mixed.err ==
        "tq: <stdin>:2: the command starts with \"root\", an account's name: cron would run it "
        "as the command. A line of a system crontab (/etc/crontab, /etc/cron.d)? Import those "
        "with --system\n");
  CHECK(Contains(mixed.out, "# line 2 NOT CONVERTED"));

  // An account that is also a command (sync) is a command, as cron would run it.
  const RunResult command = RunTq(kNoSocket, {"cron", "import"}, {}, "0 3 * * * sync -f /\n");
  CHECK(command.exit_code == 0);
  CHECK(command.err.empty());
  CHECK(Contains(command.out, "command = \"sync -f /\"\n"));
}

TEST_CASE("tq cron import refuses a file it cannot read with exit 2") {
  const RunResult r = RunTq(kNoSocket, {"cron", "import", "/nonexistent/crontab"}, {});
  CHECK(r.exit_code == 2);
  CHECK(Contains(r.err, "cannot read \"/nonexistent/crontab\""));
  CHECK(r.out.empty());
}

TEST_CASE("What tq cron import writes passes tq jobs check") {
  tq::TempDir dir("cron-import-check");
  const RunResult r = RunTq(kNoSocket, {"cron", "import", "--system"}, {},
                            "SHELL=/bin/sh\nPATH=/usr/bin:/bin\nCRON_TZ=Europe/Berlin\n"
                            "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n"
                            "25 6 * * * root run-parts --report /etc/cron.daily\n"
                            "@reboot www-data /usr/bin/warm-cache%now\n"
                            "*/5 9-17 * mar-oct mon-fri nobody /bin/true\n");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string path = dir.File("imported.toml");
  std::ofstream(path) << r.out;
  const RunResult check = RunTq(kNoSocket, {"jobs", "check", path}, {});
  INFO(check.err);
  CHECK(check.exit_code == 0);
  CHECK(Contains(check.out, "4 jobs"));
}
