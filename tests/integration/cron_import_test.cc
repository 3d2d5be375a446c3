// tq cron import (issue 11): a crontab from a file or stdin to TOML on stdout, the lines it cannot
// convert on stderr and in the exit code; the client alone, no daemon (the socket does not exist).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/temp_dir.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

constexpr const char* kNoImportSocket = "/nonexistent/tq-cron-import-test.sock";

}  // namespace

TEST_CASE("tq cron import converts a crontab on stdin and exits 0") {
  const RunResult r = RunTq(kNoImportSocket, {"cron", "import"}, {},
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
      RunTq(kNoImportSocket, {"cron", "import", "-"}, {}, "@daily ok\n61 * * * * bad\n* * *\n");
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
  const RunResult system = RunTq(kNoImportSocket, {"cron", "import", "--system", path}, {});
  INFO(system.err);
  CHECK(system.exit_code == 0);
  CHECK(Contains(system.out, "user = \"root\"\n"));
  CHECK(Contains(system.out, "command = \"/usr/sbin/backup\"\n"));

  // Without --system, one entry never switches the file's format: the line is named instead.
  const RunResult user = RunTq(kNoImportSocket, {"cron", "import", path}, {});
  CHECK(user.exit_code == 1);
  CHECK(user.err == "tq: " + path +
                        ":2: the command starts with \"root\", an account's name, and no command "
                        "of that name is on the crontab's PATH (/usr/bin:/bin): a line of a "
                        "system crontab? Import the file with --system, or with --user-format to "
                        "convert it as cron would run it\n");
  CHECK_FALSE(Contains(user.out, "user = "));
}

TEST_CASE("tq cron import of a system crontab on stdin makes the right jobs, or says why not") {
  // Every entry names an account: a system crontab, said so.
  const RunResult system =
      RunTq(kNoImportSocket, {"cron", "import"}, {},
            "0 2 * * * root /usr/bin/backup\n@daily www-data /usr/bin/rotate\n");
  INFO(system.err);
  CHECK(system.exit_code == 0);
  CHECK(system.err ==
        "tq: <stdin>: warning: read as a system crontab (--system): 2 of its 2 entries name an "
        "account after the schedule, as /etc/crontab and /etc/cron.d do (--user-format reads it "
        "as a user's)\n");
  CHECK(Contains(system.out, "user = \"root\"\n"));
  CHECK(Contains(system.out, "command = \"/usr/bin/backup\"\n"));
  CHECK_FALSE(Contains(system.out, "name = \"root\""));

  // Only some: a user crontab, those lines are problems, named, and exit 1.
  const RunResult mixed = RunTq(kNoImportSocket, {"cron", "import"}, {},
                                "0 1 * * * /usr/bin/report\n0 2 * * * root /usr/bin/backup\n");
  CHECK(mixed.exit_code == 1);
  CHECK(Contains(mixed.err, "tq: <stdin>:2: the command starts with \"root\", an account's name"));
  CHECK(Contains(mixed.out, "from standard input (a user crontab)"));
  CHECK(Contains(mixed.out, "# line 2 NOT CONVERTED"));

  // An account that is also a command (sync) is a command, as cron would run it.
  const RunResult command = RunTq(kNoImportSocket, {"cron", "import"}, {}, "0 3 * * * sync -f /\n");
  CHECK(command.exit_code == 0);
  CHECK(command.err.empty());
  CHECK(Contains(command.out, "command = \"sync -f /\"\n"));
}

TEST_CASE("tq cron import keeps a user's line a user's line: commands named like accounts") {
  // backup is an account on Debian; here it is also a program on the crontab's own PATH.
  tq::TempDir dir("cron-import-path");
  const std::string bin = dir.File("bin");
  std::filesystem::create_directory(bin);
  std::ofstream(bin + "/backup") << "#!/bin/sh\n";
  std::filesystem::permissions(bin + "/backup", std::filesystem::perms::owner_all);
  const std::string path = "PATH=" + bin + ":/usr/bin:/bin\n";

  const RunResult alone =
      RunTq(kNoImportSocket, {"cron", "import"}, {}, path + "0 2 * * * backup --all\n");
  INFO(alone.err);
  CHECK(alone.exit_code == 0);
  CHECK(alone.err.empty());
  CHECK(Contains(alone.out, "from standard input (a user crontab)"));
  CHECK(Contains(alone.out, "command = \"backup --all\"\n"));
  CHECK_FALSE(Contains(alone.out, "user = "));

  const RunResult mixed = RunTq(kNoImportSocket, {"cron", "import"}, {},
                                path + "0 1 * * * /usr/bin/report\n0 2 * * * backup --all\n");
  INFO(mixed.err);
  CHECK(mixed.exit_code == 0);
  CHECK(mixed.err.empty());
  CHECK(Contains(mixed.out, "command = \"backup --all\"\n"));
  CHECK_FALSE(Contains(mixed.out, "NOT CONVERTED"));

  // The PATH that counts is the crontab's, not tq's own: without PATH= it is cron's default.
  const RunResult default_path =
      RunTq(kNoImportSocket, {"cron", "import"}, {"PATH=" + bin + ":/usr/bin:/bin"},
            "0 2 * * * backup --all\n");
  CHECK(default_path.exit_code == 1);
  CHECK(Contains(default_path.err,
                 "no command of that name is on the crontab's PATH "
                 "(/usr/bin:/bin)"));
}

TEST_CASE("tq cron import --user-format and --system force the crontab's format") {
  const std::string two = "0 2 * * * root /usr/bin/backup\n@daily www-data /usr/bin/rotate\n";
  const RunResult user = RunTq(kNoImportSocket, {"cron", "import", "--user-format"}, {}, two);
  INFO(user.err);
  CHECK(user.exit_code == 0);
  CHECK(user.err.empty());
  CHECK(Contains(user.out, "from standard input (a user crontab)"));
  CHECK(Contains(user.out, "command = \"root /usr/bin/backup\"\n"));
  CHECK_FALSE(Contains(user.out, "user = "));

  const RunResult system =
      RunTq(kNoImportSocket, {"cron", "import", "--system"}, {}, "0 2 * * * backup --all\n");
  CHECK(system.exit_code == 0);
  CHECK(Contains(system.out, "user = \"backup\"\n"));

  const RunResult both =
      RunTq(kNoImportSocket, {"cron", "import", "--system", "--user-format"}, {}, two);
  CHECK(both.exit_code == 2);
}

TEST_CASE("tq cron import --system warns of each user this machine does not have") {
  const RunResult r = RunTq(kNoImportSocket, {"cron", "import", "--system"}, {},
                            "0 1 * * * root /bin/a\n0 2 * * * nosuchuser /bin/b\n"
                            "0 3 * * * nosuchuser /bin/c\n");
  INFO(r.err);
  CHECK(r.exit_code == 0);  // the file may be meant for another machine
  CHECK(r.err ==
        "tq: <stdin>:2: warning: the user \"nosuchuser\" does not exist on this machine: tqd "
        "refuses its jobs until it does\n");
  CHECK(Contains(r.out, "user = \"nosuchuser\"\n"));
}

TEST_CASE("tq cron import says that an empty MAILTO mails nothing") {
  const RunResult r =
      RunTq(kNoImportSocket, {"cron", "import"}, {}, "MAILTO=\"\"\n0 1 * * * report\n");
  CHECK(r.exit_code == 0);
  CHECK(Contains(r.out,
                 "# line 1: MAILTO=: no mail: the jobs that follow mail nothing, as in "
                 "cron\n"));
  CHECK_FALSE(Contains(r.out, "mailed"));
  CHECK_FALSE(Contains(r.out, "mailto = "));
}

TEST_CASE("tq cron import refuses a file it cannot read with exit 2") {
  const RunResult r = RunTq(kNoImportSocket, {"cron", "import", "/nonexistent/crontab"}, {});
  CHECK(r.exit_code == 2);
  CHECK(Contains(r.err, "cannot read \"/nonexistent/crontab\""));
  CHECK(r.out.empty());
}

TEST_CASE("What tq cron import writes passes tq jobs check") {
  tq::TempDir dir("cron-import-check");
  const RunResult r = RunTq(kNoImportSocket, {"cron", "import", "--system"}, {},
                            "SHELL=/bin/sh\nPATH=/usr/bin:/bin\nCRON_TZ=Europe/Berlin\n"
                            "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n"
                            "25 6 * * * root run-parts --report /etc/cron.daily\n"
                            "@reboot www-data /usr/bin/warm-cache%now\n"
                            "*/5 9-17 * mar-oct mon-fri nobody /bin/true\n");
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const std::string path = dir.File("imported.toml");
  std::ofstream(path) << r.out;
  const RunResult check = RunTq(kNoImportSocket, {"jobs", "check", path}, {});
  INFO(check.err);
  CHECK(check.exit_code == 0);
  CHECK(Contains(check.out, "4 jobs"));
}
