// `tq cron import`: crontab text in, a job file out that loads (ParseJobFile), keeps cron's
// semantics and fires at the same times; every line it cannot convert reported by number.
#include "core/jobs/crontab_import.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/cron/cron_expr.h"
#include "core/cron/cron_next.h"
#include "core/cron/cron_zone.h"
#include "core/jobs/crontab_syntax.h"
#include "core/jobs/job_file.h"
#include "core/model/wall_time.h"

namespace tq {
namespace {

const CrontabFormat kUser = CrontabFormat::kUser, kSystem = CrontabFormat::kSystem;

// The output passes ParseJobFile; its jobs.
std::vector<JobDef> Load(const CrontabImport& r) {
  Result<JobFile> file = ParseJobFile(r.toml, "imported.toml");
  REQUIRE_MESSAGE(file.ok(), file.status().message() << "\n" << r.toml);
  for (const JobDef& job : file->jobs) {
    CHECK(job.overlap == Overlap::kAllow);  // cron's own behaviour, kept
    CHECK(job.misfire == Misfire::kSkip);
  }
  return file->jobs;
}

// A job's env as a sorted list (TOML tables have no order).
std::vector<std::string> Env(const JobDef& job) {
  std::vector<std::string> env = job.env;
  std::sort(env.begin(), env.end());
  return env;
}

std::string Problems(const CrontabImport& r) {
  std::string out;
  for (const CrontabProblem& p : r.problems)
    out += "LINE " + std::to_string(p.line) + ": " + p.message + "\n";
  return out;
}

TEST_CASE("ImportCrontab turns crontab lines into TOML and reports what it cannot convert") {
  struct Case {
    const char* what;
    std::string crontab;
    CrontabFormat format;
    std::vector<std::string> fragments;                 // each appears in the TOML
    std::vector<std::pair<int, std::string>> problems;  // line and a part of the message
  };
  const Case cases[] = {
      {"nothing", "", kUser, {"[defaults]\noverlap = \"allow\"\nmisfire = \"skip\"\n"}, {}},
      {"one job",
       "0 2 * * * /usr/bin/report --all\n",
       kUser,
       {"[[job]]  # line 1\nname = \"report\"\nschedule = \"0 2 * * *\"\n"
        "command = \"/usr/bin/report --all\"\n"},
       {}},
      {"no newline at the end", "@daily /bin/x", kUser, {"schedule = \"@daily\""}, {}},
      {"comments stay next to their job",
       "# nightly report\n  # indented\n\n\n0 2 * * * /usr/bin/report\n# the end\n",
       kUser,
       {"# nightly report\n# indented\n\n[[job]]", "command = \"/usr/bin/report\"\n\n# the end\n"},
       {}},
      {"variables shared by every job go to [defaults]",
       "SHELL=/bin/bash\nPATH=/usr/bin:/bin\n* * * * * a\n@hourly b\n",
       kUser,
       {"[defaults]\noverlap = \"allow\"\nmisfire = \"skip\"\nshell = \"/bin/bash\"\n"
        "env = { SHELL = \"/bin/bash\", PATH = \"/usr/bin:/bin\" }\n"},
       {}},
      {"variables that change go to each job",
       "A=1\n* * * * * a\nA=2\nB='x y'\n* * * * * b\n",
       kUser,
       {"name = \"a\"\nschedule = \"* * * * *\"\nenv = { A = \"1\" }\n",
        "name = \"b\"\nschedule = \"* * * * *\"\nenv = { A = \"2\", B = \"x y\" }\n"},
       {}},
      {"HOME is also the working directory",
       "HOME=/srv/app\n* * * * * ./run\n",
       kUser,
       {"cwd = \"/srv/app\"\n", "env = { HOME = \"/srv/app\" }"},
       {}},
      {"CRON_TZ sets the zone of the jobs after it",
       "* * * * * a\nCRON_TZ=Europe/Berlin\n0 9 * * * b\n",
       kUser,
       {"name = \"b\"\nschedule = \"0 9 * * *\"\ntimezone = \"Europe/Berlin\"\n"},
       {}},
      {"an unknown CRON_TZ is a problem",
       "CRON_TZ=Mars/Olympus\n0 9 * * * b\n",
       kUser,
       {"# line 1 NOT CONVERTED: ", "#   CRON_TZ=Mars/Olympus\n"},
       {{1, "Mars/Olympus"}}},
      {"MAILTO becomes mailto",
       "MAILTO=ops@example.com\n* * * * * a\n",
       kUser,
       {"# line 1: MAILTO=ops@example.com: mailto, with mail_on = \"output\"",
        "mailto = \"ops@example.com\"\nmail_on = \"output\"\n"},
       {}},
      {"MAILTO that changes goes to each job",
       "* * * * * a\nMAILTO=ops@example.com\n* * * * * b\nMAILTO=\"\"\n* * * * * c\n",
       kUser,
       {"name = \"b\"\nschedule = \"* * * * *\"\nmailto = \"ops@example.com\"\nmail_on = "
        "\"output\"\n",
        "name = \"c\"\nschedule = \"* * * * *\"\nenv = { MAILTO = \"\" }\n"},
       {}},
      {"an empty MAILTO mails nothing, and says so",
       "MAILTO=\"\"\n* * * * * a\n",
       kUser,
       {"# line 1: MAILTO=: no mail: the jobs that follow mail nothing, as in cron\n"},
       {}},
      {"a MAILTO that is no address is a problem",
       "MAILTO=-oQ/tmp/x\n* * * * * a\n",
       kUser,
       {"# line 1 NOT CONVERTED: "},
       {{1, "is not a mail address"}}},
      {"LOGNAME and USER are cron's to set",
       "LOGNAME=bob\nUSER=bob\n* * * * * a\n",
       kUser,
       {"# line 1: LOGNAME=bob: ignored", "# line 2: USER=bob: ignored"},
       {}},
      {"RANDOM_DELAY in minutes",
       "RANDOM_DELAY=10\n* * * * * a\n",
       kUser,
       {"random_delay = \"10m\"\n"},
       {}},
      {"a bad RANDOM_DELAY", "RANDOM_DELAY=soon\n", kUser, {}, {{1, "RANDOM_DELAY \"soon\""}}},
      {"a relative SHELL", "SHELL=bash\n", kUser, {}, {{1, "not an absolute path"}}},
      {"a variable name tq cannot pass", "MY-VAR=1\n", kUser, {}, {{1, "\"MY-VAR\""}}},
      {"percent signs make stdin",
       "0 22 * * 1-5 mail -s \"It's 10pm\" joe%Joe,%%Where are your kids?%\n",
       kUser,
       {"command = \"mail -s \\\"It's 10pm\\\" joe\"\n",
        "stdin = \"Joe,\\n\\nWhere are your kids?\\n\"\n"},
       {}},
      {"escaped percent signs stay in the command",
       "0 0 * * * date +\\%F > /tmp/d\n",
       kUser,
       {"command = \"date +%F > /tmp/d\"\n"},
       {}},
      {"backslashes and quotes are escaped",
       "* * * * * echo \"a\\b\" 'c'\n",
       kUser,
       {"command = \"echo \\\"a\\\\b\\\" 'c'\"\n"},
       {}},
      {"a literal string when that needs no escapes",
       "* * * * * grep \"a\\.b\" file\n",
       kUser,
       {"command = 'grep \"a\\.b\" file'\n"},
       {}},
      {"control characters are escaped",
       "* * * * * a\tb\x7f\x01\rc\n",
       kUser,
       {"command = \"a\\tb\\u007F\\u0001\\rc\"\n"},
       {}},
      {"DOS line ends",
       "# a comment\r\n\r\n* * * * * a\r\n",
       kUser,
       {"#   # a comment\\x0d\n"},
       {{1, "carriage return"}, {2, "carriage return"}, {3, "carriage return"}}},
      {"the same program twice gets unique names",
       "* * * * * /bin/report a\n* * * * * /usr/bin/report b\n@daily report c\n",
       kUser,
       {"name = \"report\"\n", "name = \"report-2\"\n", "name = \"report-3\"\n"},
       {}},
      {"system crontabs name the user",
       "17 * * * * root cd / && run-parts --report /etc/cron.hourly\n",
       kSystem,
       {"name = \"cron.hourly\"\n", "user = \"root\"\n", "system crontab"},
       {}},
      {"a user crontab read as a system one",
       "* * * * * /bin/x\n",
       kSystem,
       {},
       {{1, "is not a user name"}}},
      {"bad lines are kept as comments, good ones still convert",
       "* * * *\n61 * * * * x\n@every 5m y\n0 0 L * * z\n@daily ok\n",
       kUser,
       {"# line 1 NOT CONVERTED: expected 5 time fields", "#   * * * *\n",
        "# line 2 NOT CONVERTED: minute \"61\"", "name = \"ok\"", "4 line(s) could not be"},
       {{1, "found 4 fields"},
        {2, "61 is out of range"},
        {3, "not a crontab macro"},
        {4, "not crontab syntax"}}},
      {"a line that is not UTF-8",
       "# caf\xe9\n* * * * * echo caf\xe9\n",
       kUser,
       {"#   \"# caf\\xe9\"\n"},
       {{1, "not valid UTF-8"}, {2, "not valid UTF-8"}}},
      {"a NUL byte", std::string("* * * * * a\0b\n", 14), kUser, {}, {{1, "NUL"}}},
      {"UTF-8 is kept as it is",
       "# Größe\n* * * * * echo größe\n",
       kUser,
       {"# Größe\n", "command = \"echo größe\"\n"},
       {}},
      {"a six-field schedule", "0 * * * * * /bin/x\n", kUser, {}, {{1, "sixth time field"}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    const CrontabImport r = ImportCrontab(c.crontab, c.format, "test");
    CAPTURE(r.toml);
    for (const std::string& f : c.fragments) CHECK_MESSAGE(r.toml.find(f) != std::string::npos, f);
    REQUIRE_MESSAGE(r.problems.size() == c.problems.size(), Problems(r));
    for (size_t i = 0; i < c.problems.size(); ++i) {
      CHECK(r.problems[i].line == c.problems[i].first);
      CHECK_MESSAGE(r.problems[i].message.find(c.problems[i].second) != std::string::npos,
                    r.problems[i].message);
    }
    Load(r);
  }
}

TEST_CASE("ImportCrontab keeps what each job sees: env shell stdin zone and user") {
  const CrontabImport r = ImportCrontab(
      "SHELL=/bin/bash\nA=1\n* * * * * first\nA=2\nCRON_TZ=Asia/Tokyo\n"
      "@reboot second%line 1%line 2\n",
      kUser, "test");
  REQUIRE(r.problems.empty());
  const std::vector<JobDef> jobs = Load(r);
  REQUIRE(jobs.size() == 2);
  CHECK(jobs[0].name == "first");
  CHECK(jobs[0].shell == "/bin/bash");
  CHECK(jobs[0].timezone.empty());
  CHECK(Env(jobs[0]) == std::vector<std::string>{"A=1", "SHELL=/bin/bash"});
  CHECK(jobs[1].name == "second");
  CHECK(jobs[1].schedule.kind == CronKind::kReboot);
  CHECK(jobs[1].timezone == "Asia/Tokyo");
  CHECK(Env(jobs[1]) == std::vector<std::string>{"A=2", "CRON_TZ=Asia/Tokyo", "SHELL=/bin/bash"});
  CHECK(jobs[1].command == "second");
  CHECK(jobs[1].stdin_data == "line 1\nline 2");
}

TEST_CASE("ImportCrontab stops at the size of a job file and says so") {
  SUBCASE("a crontab larger than a job file") {
    const CrontabImport r = ImportCrontab(std::string(kMaxJobFileBytes + 1, '#'), kUser, "big");
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].line == 0);
    CHECK(r.problems[0].message.find("split the crontab") != std::string::npos);
    CHECK(Load(r).empty());
  }
  SUBCASE("variables that change between jobs, each job carrying them all") {
    std::string crontab;
    for (int i = 0; i < 400; ++i)
      crontab += "V" + std::to_string(i) + "=" + std::string(1000, 'v') + "\n* * * * * j\n";
    const CrontabImport r = ImportCrontab(crontab, kUser, "growing");
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].line == 0);
    CHECK(Load(r).empty());
  }
  SUBCASE("many jobs of one name") {
    std::string crontab;
    for (int i = 0; i < 20000; ++i) crontab += "* * * * * x\n";
    const CrontabImport r = ImportCrontab(crontab, kUser, "many");
    REQUIRE_MESSAGE(r.problems.empty(), Problems(r));
    const std::vector<JobDef> jobs = Load(r);
    REQUIRE(jobs.size() == 20000);
    CHECK(jobs.back().name == "x-20000");
  }
}

// --- Real crontabs: tests/data/crontabs/{system,user}/* -------------------------------------

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// What the test itself reads from a crontab's job line, independently of the importer.
struct ExpectedJob {
  std::string schedule, user, zone, command;  // command: "" when the line has a `%`
};

std::vector<ExpectedJob> ExpectedJobs(const std::string& text, CrontabFormat format) {
  std::vector<ExpectedJob> out;
  std::string zone;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    if (std::optional<CrontabAssignment> a = ParseCrontabAssignment(line)) {
      if (a->name == "CRON_TZ") zone = a->value;
      continue;
    }
    ExpectedJob job{first, "", zone, ""};
    for (int i = 1; first[0] != '@' && i < 5; ++i) {
      std::string w;
      words >> w;
      job.schedule += " " + w;
    }
    if (format == kSystem) words >> job.user;
    std::string rest;
    std::getline(words, rest);
    rest.erase(0, rest.find_first_not_of(" \t"));
    if (rest.find('%') == std::string::npos) job.command = rest;
    out.push_back(job);
  }
  return out;
}

// The imported schedule fires at the very instants the crontab's does, over years of firings
// from several starting points (across DST changes in the zones that have them).
void CheckSameFirings(const JobDef& job, const ExpectedJob& want) {
  Result<CronExpr> cron = ParseCron(want.schedule);
  REQUIRE(cron.ok());
  CHECK(job.schedule.kind == cron->kind);
  if (cron->kind == CronKind::kReboot) return;
  Result<TimeZone> zone = LoadTimeZone(want.zone.empty() ? "Europe/Berlin" : want.zone);
  REQUIRE(zone.ok());
  for (const char* start : {"2026-01-01T00:00:00Z", "2026-03-29T00:30:00Z", "2026-10-25T00:30:00Z",
                            "2028-02-28T12:00:00Z"}) {
    Result<WallMs> from = ParseRfc3339(start);
    REQUIRE(from.ok());
    WallMs a = *from, b = *from;
    for (int i = 0; i < 500; ++i) {
      Result<WallMs> next_job = NextFire(job.schedule, a, *zone, job.dst);
      Result<WallMs> next_cron = NextFire(*cron, b, *zone, DstPolicy::kCron);
      REQUIRE(next_job.ok());
      REQUIRE(next_cron.ok());
      REQUIRE(*next_job == *next_cron);
      a = b = *next_job;
    }
  }
}

TEST_CASE("Real crontabs convert without problems and fire at the same times") {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(TQ_TEST_DATA_DIR) / "crontabs";
  int files = 0;
  for (const auto& [dir, format] : {std::pair{"system", kSystem}, std::pair{"user", kUser}}) {
    for (const fs::directory_entry& entry : fs::directory_iterator(root / dir)) {
      ++files;
      CAPTURE(entry.path().string());
      const std::string text = ReadFile(entry.path());
      const CrontabImport r = ImportCrontab(text, format, entry.path().string());
      CAPTURE(r.toml);
      CHECK_MESSAGE(r.problems.empty(), Problems(r));
      const std::vector<JobDef> jobs = Load(r);
      const std::vector<ExpectedJob> want = ExpectedJobs(text, format);
      REQUIRE(jobs.size() == want.size());
      for (size_t i = 0; i < jobs.size(); ++i) {
        CAPTURE(jobs[i].name);
        CHECK(jobs[i].user == want[i].user);
        CHECK(jobs[i].timezone == want[i].zone);
        if (!want[i].command.empty()) CHECK(jobs[i].command == want[i].command);
        CheckSameFirings(jobs[i], want[i]);
      }
    }
  }
  CHECK(files >= 7);
}

TEST_CASE("Debian's /etc/crontab becomes the four run-parts jobs") {
  const std::string path = std::string(TQ_TEST_DATA_DIR) + "/crontabs/system/crontab";
  const std::vector<JobDef> jobs = Load(ImportCrontab(ReadFile(path), kSystem, path));
  std::vector<std::string> names;
  for (const JobDef& j : jobs) names.push_back(j.name);
  CHECK(names ==
        std::vector<std::string>{"cron.hourly", "cron.daily", "cron.weekly", "cron.monthly"});
  for (const JobDef& j : jobs) {
    CHECK(j.user == "root");
    CHECK(j.shell == "/bin/sh");
    CHECK(std::find(j.env.begin(), j.env.end(),
                    "PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin") !=
          j.env.end());
  }
}

TEST_CASE("The user crontab with every feature keeps each one") {
  const std::string path = std::string(TQ_TEST_DATA_DIR) + "/crontabs/user/every-feature";
  const CrontabImport r = ImportCrontab(ReadFile(path), kUser, path);
  REQUIRE_MESSAGE(r.problems.empty(), Problems(r));
  const std::vector<JobDef> jobs = Load(r);
  auto find = [&](const std::string& name) -> const JobDef& {
    auto it =
        std::find_if(jobs.begin(), jobs.end(), [&](const JobDef& j) { return j.name == name; });
    REQUIRE_MESSAGE(it != jobs.end(), name << "\n" << r.toml);
    return *it;
  };
  const JobDef& poll = find("poll-queue");
  CHECK(poll.shell == "/bin/bash");
  CHECK(poll.cwd == "/home/alice");
  CHECK(Env(poll) == std::vector<std::string>{"GREETING=  hello, world  ", "HOME=/home/alice",
                                              "MAILTO=alice@example.com",
                                              "PATH=/home/alice/bin:/usr/local/bin:/usr/bin:/bin",
                                              "SHELL=/bin/bash"});
  CHECK(find("mail").stdin_data == "Joe,\n\nWhere are your kids?\n");
  CHECK(find("printf").command == "printf '100% done\\n' > /tmp/percent");
  CHECK(find("echo").command == "echo \"every other hour, \\\"quoted\\\" and \\\\ backslashed\"");
  CHECK(find("start-agent").schedule.kind == CronKind::kReboot);
  CHECK(find("weekly-report").timezone == "Europe/Berlin");
  CHECK(find("poll-queue-2").timezone.empty());
  const JobDef& cleanup = find("cleanup");
  CHECK(cleanup.random_delay_ms == 10 * 60 * 1000);
  CHECK(cleanup.timezone == "Europe/Berlin");
  const JobDef& week = find("tar");
  CHECK(week.command == "cd /tmp && tar czf week.tgz data");
  CHECK(std::find(week.env.begin(), week.env.end(), "MAILTO=") != week.env.end());
  for (const JobDef& j : jobs) {
    CAPTURE(j.name);
    for (const std::string& e : j.env) CHECK(e.rfind("LOGNAME=", 0) != 0);
  }
  CHECK(poll.notify.mailto == "alice@example.com");
  CHECK(week.notify.mailto.empty());
  CHECK(r.toml.find("# an indented comment, with a tab") != std::string::npos);
  CHECK(r.toml.find("# a trailing comment") != std::string::npos);
}

}  // namespace
}  // namespace tq

namespace tq {
namespace {

// Accounts root, www-data and backup; a command named backup in /opt/bin only.
const CrontabLookups kLookups = {
    [](std::string_view word) { return word == "root" || word == "www-data" || word == "backup"; },
    [](std::string_view word, std::string_view path) {
      return word == "backup" && path.find("/opt/bin") != std::string_view::npos;
    }};

TEST_CASE("ImportCrontab decides an unsaid format by a majority, and names the lines against it") {
  struct Case {
    const char* what;
    std::string crontab;
    bool system;                // read as a system crontab, with a warning
    std::vector<int> problems;  // the lines named as against the format read
  };
  const Case cases[] = {
      {"every entry names an account", "0 2 * * * root /bin/a\n@daily www-data /bin/b\n", true, {}},
      {"one entry alone never switches the file", "0 2 * * * root /bin/a\n", false, {1}},
      {"variables and comments do not count",
       "PATH=/bin\n# x\n0 2 * * * root /bin/a\n0 3 * * * root /bin/b\n",
       true,
       {}},
      {"a clear majority: the others are named",
       "0 1 * * * root /bin/a\n0 2 * * * root /bin/b\n0 3 * * * /bin/c --all\n",
       true,
       {3}},
      {"no clear majority: those that name one are named",
       "0 1 * * * /bin/a\n0 2 * * * root /bin/b\n0 3 * * * www-data /bin/c\n0 4 * * * /bin/d\n",
       false,
       {2, 3}},
      {"a command on the crontab's PATH is a command",
       "PATH=/opt/bin:/usr/bin\n0 2 * * * backup --all\n0 3 * * * /bin/report\n",
       false,
       {}},
      {"the PATH above the line counts",
       "0 2 * * * backup --all\nPATH=/opt/bin\n0 3 * * * backup --all\n",
       false,
       {1}},
      {"an account with nothing after it is a command", "0 1 * * * root\n", false, {}},
      {"no entry at all", "# only a comment\n", false, {}},
  };
  for (const Case& c : cases) {
    CAPTURE(std::string(c.what));
    const CrontabImport r = ImportCrontab(c.crontab, std::nullopt, "test", kLookups);
    const bool said_system =
        !r.warnings.empty() && r.warnings[0].line == 0 &&
        r.warnings[0].message.find("read as a system crontab") != std::string::npos;
    CHECK(said_system == c.system);
    CHECK((r.toml.find("a system crontab, with a user column") != std::string::npos) == c.system);
    std::vector<int> lines;
    for (const CrontabProblem& p : r.problems) lines.push_back(p.line);
    CHECK(lines == c.problems);
    Load(r);
  }
  // Without the lookups, or with the format given, nothing is guessed.
  CHECK(ImportCrontab("0 2 * * * root /bin/a\n0 3 * * * root /bin/b\n", std::nullopt, "t")
            .warnings.empty());
  const CrontabImport user =
      ImportCrontab("0 2 * * * root /bin/a\n0 3 * * * root /bin/b\n", kUser, "t", kLookups);
  CHECK(user.warnings.empty());
  CHECK(user.problems.empty());
  CHECK(user.toml.find("command = \"root /bin/a\"") != std::string::npos);
  const CrontabImport system = ImportCrontab("0 2 * * * backup --all\n", kSystem, "t", kLookups);
  CHECK(system.warnings.empty());
  CHECK(system.problems.empty());
  CHECK(system.toml.find("user = \"backup\"\n") != std::string::npos);
  CHECK(system.toml.find("command = \"--all\"\n") != std::string::npos);
}

TEST_CASE("ImportCrontab warns once of each user of a system crontab this machine lacks") {
  const CrontabImport r = ImportCrontab(
      "0 1 * * * ghost /bin/a\n0 2 * * * root /bin/b\n0 3 * * * ghost /bin/c\n@daily nemo x\n",
      kSystem, "t", kLookups);
  CHECK(r.problems.empty());
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0].line == 1);
  CHECK(r.warnings[0].message ==
        "the user \"ghost\" does not exist on this machine: tqd refuses its jobs until it does");
  CHECK(r.warnings[1].line == 4);
  CHECK(r.warnings[1].message.find("\"nemo\"") != std::string::npos);
  CHECK(Load(r).size() == 4);  // converted all the same: the file may be for another machine
}

TEST_CASE("ImportCrontab converts an unescaped % as cron does, with a warning naming the line") {
  const CrontabImport r = ImportCrontab("0 1 * * * ok\n0 2 * * * cat%in\n0 3 * * * date +\\%F\n",
                                        CrontabFormat::kUser, "t");
  CHECK(r.problems.empty());
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].line == 2);
  CHECK(r.warnings[0].message.find("standard input") != std::string::npos);
  CHECK(r.toml.find("stdin = \"in\"") != std::string::npos);
}

TEST_CASE("ImportCrontab maps MAILTO to mailto with mail_on = output, cron's rule") {
  const CrontabImport r =
      ImportCrontab("MAILTO=ops@example.org\n0 1 * * * report\n", CrontabFormat::kUser, "t");
  CHECK(r.problems.empty());
  CHECK(r.toml.find("mailto = \"ops@example.org\"\nmail_on = \"output\"\n") != std::string::npos);
}

}  // namespace
}  // namespace tq
