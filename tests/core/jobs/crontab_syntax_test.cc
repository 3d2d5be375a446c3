// Reading crontab lines as cron does: assignments, the schedule and user columns, `%`.
#include "core/jobs/crontab_syntax.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace tq {
namespace {

TEST_CASE("ParseCrontabAssignment reads NAME = value as cron's load_env does") {
  struct Case {
    std::string line;
    std::optional<std::pair<std::string, std::string>> want;  // nullopt: a job line
  };
  const Case cases[] = {
      {"PATH=/usr/bin:/bin", {{"PATH", "/usr/bin:/bin"}}},
      {"  SHELL = /bin/bash  ", {{"SHELL", "/bin/bash"}}},
      {"A=b c  d \t", {{"A", "b c  d"}}},  // inner spaces stay; trailing ones go
      {"MAILTO=\"\"", {{"MAILTO", ""}}},
      {"MAILTO=", {{"MAILTO", ""}}},
      {"X='  padded  '", {{"X", "  padded  "}}},
      {"X = \"a 'b' c\"   ", {{"X", "a 'b' c"}}},
      {"\"QUOTED\"=1", {{"QUOTED", "1"}}},
      {"'Q N'=v", {{"Q N", "v"}}},
      {"X=a=b", {{"X", "a=b"}}},
      {"X=\"unclosed", std::nullopt},
      {"X=\"a\" trailing", std::nullopt},  // only white space may follow the closing quote
      {"\"A=B\"=c", std::nullopt},         // no `=` inside a quoted name
      {"X=it's", {{"X", "it's"}}},         // an unquoted value keeps its quotes
      {"X=\"a\"b\"", std::nullopt},
      {"=value", std::nullopt},
      {"* * * * * X=1 cmd", std::nullopt},
      {"@daily FOO=1 cmd", std::nullopt},
      {"FOO BAR=1", std::nullopt},
      {"FOO", std::nullopt},
      {"CRLF=value\r", {{"CRLF", "value"}}},  // cron trims every isspace() byte
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    const std::optional<CrontabAssignment> a = ParseCrontabAssignment(c.line);
    REQUIRE(a.has_value() == c.want.has_value());
    if (!a) continue;
    CHECK(a->name == c.want->first);
    CHECK(a->value == c.want->second);
  }
}

TEST_CASE("ParseCrontabEntry splits schedule user and command and applies the percent rule") {
  struct Case {
    std::string line;
    CrontabFormat format;
    std::string schedule, user, command;
    std::optional<std::string> stdin_data;
  };
  const CrontabFormat kUser = CrontabFormat::kUser, kSystem = CrontabFormat::kSystem;
  const Case cases[] = {
      {"*/5 9-17 * * mon-fri /bin/poll", kUser, "*/5 9-17 * * mon-fri", "", "/bin/poll", {}},
      {"  17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly",
       kSystem,
       "17 * * * *",
       "root",
       "cd / && run-parts --report /etc/cron.hourly",
       {}},
      {"@reboot   /bin/start  ", kUser, "@reboot", "", "/bin/start  ", {}},
      {"@daily www-data /usr/bin/php x.php",
       kSystem,
       "@daily",
       "www-data",
       "/usr/bin/php x.php",
       {}},
      {"0 22 * * 1-5 mail -s \"It's 10pm\" joe%Joe,%%Where are your kids?%", kUser, "0 22 * * 1-5",
       "", "mail -s \"It's 10pm\" joe", std::string("Joe,\n\nWhere are your kids?\n")},
      {"0 0 * * * date +\\%Y-\\%m-\\%d", kUser, "0 0 * * *", "", "date +%Y-%m-%d", {}},
      {"0 0 * * * a\\b\\\\%c\\%d\\e\\", kUser, "0 0 * * *", "", "a\\b\\\\",
       std::string("c%d\\e\\")},
      {"0 0 * * * cat%", kUser, "0 0 * * *", "", "cat", std::string()},
      {"0 0 * * * cat %\\\\%", kUser, "0 0 * * *", "", "cat ", std::string("\\%")},
      {"0 0 * * * cat %%%", kUser, "0 0 * * *", "", "cat ", std::string("\n\n")},
      {"0 0 * * * printf 'x' # not a comment",
       kUser,
       "0 0 * * *",
       "",
       "printf 'x' # not a comment",
       {}},
      {"0 0 1,15 JAN-Jun Sun-sat /bin/x", kUser, "0 0 1,15 JAN-Jun Sun-sat", "", "/bin/x", {}},
      {"5/15 * * * * /bin/x", kUser, "5/15 * * * *", "", "/bin/x", {}},  // cronie's start/step
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    Result<CrontabEntry> e = ParseCrontabEntry(c.line, c.format);
    REQUIRE_MESSAGE(e.ok(), e.status().message());
    CHECK(e->schedule == c.schedule);
    CHECK(e->user == c.user);
    CHECK(e->command == c.command);
    CHECK(e->stdin_data == c.stdin_data);
  }
}

TEST_CASE("ParseCrontabEntry refuses what cron would refuse and says why") {
  struct Case {
    std::string line;
    CrontabFormat format;
    std::string field, message;  // message: a part of it
  };
  const CrontabFormat kUser = CrontabFormat::kUser, kSystem = CrontabFormat::kSystem;
  const Case cases[] = {
      {"* * * *", kUser, "schedule", "expected 5 time fields and a command, found 4 fields"},
      {"*", kUser, "schedule", "found 1 field"},
      {"* * * * *", kUser, "command", "expected a command"},
      {"* * * * *   \t", kUser, "command", "expected a command"},
      {"61 * * * * x", kUser, "minute", "61 is out of range 0..59"},
      {"* 24 * * * x", kUser, "hour", "24 is out of range"},
      {"0 0 30 feb * x", kUser, "schedule", ""},  // no February has a 30th
      {"0 0 L * * x", kUser, "day-of-month", "not crontab syntax"},
      {"0 0 15W * * x", kUser, "day-of-month", "not crontab syntax"},
      {"0 0 ? * * x", kUser, "day-of-month", "not crontab syntax"},
      {"0 0 * * 5L x", kUser, "day-of-week", "not crontab syntax"},
      {"0 0 * * 1#2 x", kUser, "day-of-week", "not crontab syntax"},
      {"0 0 jan * * x", kUser, "day-of-month", "not crontab syntax"},
      {"x 0 * * * x", kUser, "minute", "not crontab syntax"},
      {"0 0 * foo * x", kUser, "month", "unknown month name"},
      {"@every 5m x", kUser, "schedule", "not a crontab macro"},
      {"@DAILY x", kUser, "schedule", "not a crontab macro"},
      {"@ x", kUser, "schedule", "not a crontab macro"},
      {"0 * * * * * /bin/x", kUser, "command", "a sixth time field?"},
      {"0 * * * * */2 /bin/x", kUser, "command", "a sixth time field?"},
      {"* * * * * /bin/x", kSystem, "user", "is not a user name"},
      {"* * * * * root", kSystem, "command", "expected a command"},
      {"@daily", kSystem, "user", "expected a user name"},
      {"* * * * * %stdin only", kUser, "command", "is empty"},
      {"* * * * *  \t%x", kUser, "command", "is empty"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    Result<CrontabEntry> e = ParseCrontabEntry(c.line, c.format);
    REQUIRE_FALSE(e.ok());
    CHECK(e.status().code() == ErrorCode::kInvalid);
    if (!c.field.empty() && c.field != "schedule") CHECK(e.status().field() == c.field);
    CHECK_MESSAGE(e.status().message().find(c.message) != std::string::npos, e.status().message());
  }
}

}  // namespace
}  // namespace tq
