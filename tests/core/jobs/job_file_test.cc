// The job file reader: every key, [defaults], and each refusal's field, line and message.
#include "core/jobs/job_file.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/limits.h"

namespace tq {
namespace {

JobFile MustParseJobs(const std::string& text) {
  Result<JobFile> r = ParseJobFile(text, "jobs.d/a.toml");
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  return *r;
}

Status MustFail(const std::string& text) {
  Result<JobFile> r = ParseJobFile(text, "jobs.d/a.toml");
  REQUIRE_MESSAGE(!r.ok(), "accepted: " << text);
  CHECK(r.status().code() == ErrorCode::kConfig);
  return r.status();
}

TEST_CASE("job file: a minimal job gets the documented defaults") {
  JobFile f =
      MustParseJobs("[[job]]\nname = \"backup\"\nschedule = \"15 2 * * *\"\ncommand = \"b\"\n");
  CHECK(f.path == "jobs.d/a.toml");
  REQUIRE(f.jobs.size() == 1);
  const JobDef& j = f.jobs[0];
  CHECK(j.name == "backup");
  CHECK(j.file == "jobs.d/a.toml");
  CHECK(j.line == 1);
  CHECK(j.schedule.text == "15 2 * * *");
  CHECK(j.timezone.empty());
  CHECK(j.dst == DstPolicy::kCron);
  CHECK(j.command == std::optional<std::string>("b"));
  CHECK(j.shell == "/bin/sh");
  CHECK(j.argv.empty());
  CHECK(j.user.empty());
  CHECK(j.cwd.empty());
  CHECK(j.env.empty());
  CHECK_FALSE(j.stdin_data.has_value());
  CHECK(j.queue == "default");
  CHECK(j.priority == 3);
  CHECK(j.timeout_ms == 0);
  CHECK(j.pending_ttl_ms == 0);
  CHECK_FALSE(j.retry.retries.has_value());
  CHECK_FALSE(j.retry.backoff.has_value());
  CHECK(j.overlap == Overlap::kSkip);
  CHECK(j.misfire == Misfire::kRunOnce);
  CHECK(j.max_catch_up == 10);
  CHECK(j.max_lateness_ms == 0);
  CHECK(j.random_delay_ms == 0);
  CHECK(j.enabled);
}

TEST_CASE("job file: an empty file and one with only defaults have no jobs") {
  CHECK(MustParseJobs("").jobs.empty());
  CHECK(MustParseJobs("# nothing yet\n[defaults]\nqueue = \"cron\"\n").jobs.empty());
}

TEST_CASE("job file: every key") {
  JobFile f = MustParseJobs(R"(# every key of a job
[[job]]
name = "nightly-report"
schedule = "0 15 2 * * *"
timezone = "Europe/Berlin"
dst = "both"
command = "/usr/bin/php /data/daily.php"
shell = "/bin/bash"
user = "www-data"
cwd = "/srv/reports"
env = { REPORT_DIR = "/srv/reports", _X1 = "" }
stdin = "line 1\nline 2\n"
queue = "cron.nightly"
priority = 2
timeout = "2h"
pending_ttl = 600
retries = 3
backoff = { kind = "fixed", base = "30s", max = "30m", jitter = false }
retry_on_exit = [75, 1]
no_retry_on_exit = [2]
overlap = "replace"
misfire = "run_all"
max_catch_up = 3
max_lateness = "6h"
random_delay = "1m30s"
enabled = false

[[job]]
name = "sync"
schedule = "@every 90s"
argv = ["/usr/bin/rsync", "-a", "", "/srv/ with space/"]
)");
  REQUIRE(f.jobs.size() == 2);
  const JobDef& j = f.jobs[0];
  CHECK(j.line == 2);
  CHECK(j.schedule.text == "0 15 2 * * *");
  CHECK(j.timezone == "Europe/Berlin");
  CHECK(j.dst == DstPolicy::kBoth);
  CHECK(*j.command == "/usr/bin/php /data/daily.php");
  CHECK(j.shell == "/bin/bash");
  CHECK(j.user == "www-data");
  CHECK(j.cwd == "/srv/reports");
  CHECK(j.env == std::vector<std::string>{"REPORT_DIR=/srv/reports", "_X1="});
  CHECK(*j.stdin_data == "line 1\nline 2\n");
  CHECK(j.queue == "cron.nightly");
  CHECK(j.priority == 2);
  CHECK(j.timeout_ms == 2 * 3600 * 1000);
  CHECK(j.pending_ttl_ms == 600 * 1000);
  CHECK(*j.retry.retries == 3);
  CHECK(*j.retry.backoff == BackoffKind::kFixed);
  CHECK(*j.retry.base_ms == 30000);
  CHECK(*j.retry.max_ms == 1800000);
  CHECK(*j.retry.jitter == false);
  CHECK(*j.retry.retry_on_exit == std::vector<int>{75, 1});
  CHECK(*j.retry.no_retry_on_exit == std::vector<int>{2});
  CHECK(j.overlap == Overlap::kReplace);
  CHECK(j.misfire == Misfire::kRunAll);
  CHECK(j.max_catch_up == 3);
  CHECK(j.max_lateness_ms == 6 * 3600 * 1000);
  CHECK(j.random_delay_ms == 90000);
  CHECK_FALSE(j.enabled);

  const JobDef& s = f.jobs[1];
  CHECK(s.line == 28);
  CHECK(s.schedule.kind == CronKind::kEvery);
  CHECK(s.schedule.every_ms == 90000);
  CHECK_FALSE(s.command.has_value());
  CHECK(s.argv == std::vector<std::string>{"/usr/bin/rsync", "-a", "", "/srv/ with space/"});
}

TEST_CASE("job file: the spellings of each choice") {
  struct Case {
    const char* line;
    Overlap overlap;
    Misfire misfire;
  };
  for (const Case& c :
       {Case{"overlap = \"skip\"\nmisfire = \"skip\"", Overlap::kSkip, Misfire::kSkip},
        Case{"overlap = \"queue\"\nmisfire = \"run_once\"", Overlap::kQueue, Misfire::kRunOnce},
        Case{"overlap = \"allow\"\nmisfire = \"run_all\"", Overlap::kAllow, Misfire::kRunAll}}) {
    JobFile f = MustParseJobs(std::string("[[job]]\nname = \"a\"\nschedule = \"@hourly\"\n") +
                              "command = \"x\"\n" + c.line + "\n");
    CHECK(f.jobs[0].overlap == c.overlap);
    CHECK(f.jobs[0].misfire == c.misfire);
  }
  JobFile b = MustParseJobs(
      "[[job]]\nname = \"a\"\nschedule = \"@reboot\"\ncommand = \"x\"\nbackoff = "
      "\"progressive\"\n");
  CHECK(*b.jobs[0].retry.backoff == BackoffKind::kProgressive);
  CHECK_FALSE(b.jobs[0].retry.base_ms.has_value());
  CHECK(b.jobs[0].schedule.kind == CronKind::kReboot);
}

TEST_CASE("job file: defaults apply to every job and each job overrides them") {
  JobFile f = MustParseJobs(R"(
[[job]]
name = "first"
command = "one"

[defaults]
queue = "cron"
schedule = "@daily"
timezone = "UTC"
command = "default command"
priority = 4
env = { PATH = "/opt/bin:/usr/bin", MODE = "batch" }
backoff = { kind = "fixed", base = "5s" }
overlap = "queue"

[[job]]
name = "second"
argv = ["/bin/true"]
priority = 1
env = { MODE = "quick", EXTRA = "1" }
backoff = { max = "1m" }
timezone = "Asia/Tokyo"

[[job]]
name = "third"
)");
  REQUIRE(f.jobs.size() == 3);
  for (const JobDef& j : f.jobs) {
    CHECK(j.queue == "cron");
    CHECK(j.schedule.text == "@daily");
    CHECK(j.overlap == Overlap::kQueue);
    CHECK(*j.retry.backoff == BackoffKind::kFixed);
    CHECK(*j.retry.base_ms == 5000);
  }
  CHECK(*f.jobs[0].command == "one");
  CHECK(f.jobs[0].priority == 4);
  CHECK(f.jobs[0].timezone == "UTC");
  CHECK(f.jobs[0].env == std::vector<std::string>{"PATH=/opt/bin:/usr/bin", "MODE=batch"});
  CHECK_FALSE(f.jobs[0].retry.max_ms.has_value());

  CHECK_FALSE(f.jobs[1].command.has_value());  // the job's argv replaces the default command
  CHECK(f.jobs[1].argv == std::vector<std::string>{"/bin/true"});
  CHECK(f.jobs[1].priority == 1);
  CHECK(f.jobs[1].timezone == "Asia/Tokyo");
  CHECK(f.jobs[1].env ==
        std::vector<std::string>{"PATH=/opt/bin:/usr/bin", "MODE=quick", "EXTRA=1"});
  CHECK(*f.jobs[1].retry.max_ms == 60000);

  CHECK(*f.jobs[2].command == "default command");
  CHECK(f.jobs[2].line == 24);
}

TEST_CASE("job file: defaults with argv and a job with a command") {
  JobFile f = MustParseJobs(
      "[defaults]\nargv = [\"/bin/echo\"]\nschedule = \"@hourly\"\n"
      "[[job]]\nname = \"a\"\n[[job]]\nname = \"b\"\ncommand = \"echo b\"\nshell = "
      "\"/bin/dash\"\n");
  CHECK(f.jobs[0].argv == std::vector<std::string>{"/bin/echo"});
  CHECK(*f.jobs[1].command == "echo b");
  CHECK(f.jobs[1].argv.empty());
  CHECK(f.jobs[1].shell == "/bin/dash");
}

struct Bad {
  const char* name;
  std::string text;
  const char* field;
  const char* message;
};

// A job that is good but for what each case adds.
std::string Job(const std::string& extra) {
  return "[[job]]\nname = \"j\"\nschedule = \"@daily\"\ncommand = \"c\"\n" + extra + "\n";
}

TEST_CASE("job file: use asks for resource units, in a job or its defaults") {
  JobFile f = MustParseJobs("[defaults]\nuse = { gpu = 1 }\n" + Job("") +
                            "[[job]]\nname = \"k\"\nschedule = \"@daily\"\ncommand = \"c\"\n"
                            "use = { gpu = 2, licence = 1 }\n");
  REQUIRE(f.jobs.size() == 2);
  CHECK(f.jobs[0].use == UnitRequest{{"gpu", 1}});
  CHECK(f.jobs[1].use == UnitRequest{{"gpu", 2}, {"licence", 1}});
  CHECK(MustParseJobs(Job("")).jobs[0].use.empty());
}

TEST_CASE("job file: shards makes each run a group, in a job or its defaults") {
  JobFile f = MustParseJobs("[defaults]\nshards = 4\n" + Job("") +
                            "[[job]]\nname = \"k\"\nschedule = \"@daily\"\ncommand = \"c\"\n"
                            "shards = 1000\n");
  REQUIRE(f.jobs.size() == 2);
  CHECK(f.jobs[0].shards == 4);
  CHECK(f.jobs[1].shards == 1000);
  CHECK(MustParseJobs(Job("")).jobs[0].shards == 0);
}

TEST_CASE("job file: refusals name the file, the line, the key and the reason") {
  const std::vector<Bad> cases = {
      {"syntax", "[[job]\n", "", "jobs.d/a.toml:1: "},
      {"unknown top key", "jobs = 1\n", "jobs",
       "jobs.d/a.toml:1: jobs: unknown key (allowed at the top of a job file: [defaults] and "
       "[[job]])"},
      {"job as a table", "[job]\nname = \"x\"\n", "job",
       "jobs.d/a.toml:1: job: a table is not a list of jobs (use a [[job]] table for each job)"},
      {"defaults as a value", "defaults = 3\n", "defaults",
       "jobs.d/a.toml:1: defaults: 3 is not a table (use a [defaults] table)"},
      {"unknown job key", Job("comand = \"x\""), "comand",
       "jobs.d/a.toml:5: comand: unknown key (allowed in a [[job]]: name, schedule, timezone, dst, "
       "command, shell, argv, stages, user, cwd, env, stdin, queue, priority, timeout, "
       "pending_ttl, retries, backoff, retry_on_exit, no_retry_on_exit, overlap, misfire, "
       "max_catch_up, max_lateness, random_delay, nice, ionice, nofile, nproc, core, on_failure, "
       "on_success, on_finish, mailto, mail_on, expect_success_within, enabled, use, shards)"},
      {"unknown defaults key", "[defaults]\nqeue = \"x\"\n", "defaults.qeue",
       "jobs.d/a.toml:2: defaults.qeue: unknown key (allowed in [defaults]: every job key but "
       "name and stages)"},
      {"odd key quoted", Job("\"a b\" = 1"), "\"a b\"",
       "jobs.d/a.toml:5: \"a b\": unknown key (allowed in a [[job]]: name, schedule, timezone, "
       "dst, command, shell, argv, stages, user, cwd, env, stdin, queue, priority, timeout, "
       "pending_ttl, retries, backoff, retry_on_exit, no_retry_on_exit, overlap, misfire, "
       "max_catch_up, max_lateness, random_delay, nice, ionice, nofile, nproc, core, on_failure, "
       "on_success, on_finish, mailto, mail_on, expect_success_within, enabled, use, shards)"},
      {"nice out of range", Job("nice = -21"), "nice",
       "jobs.d/a.toml:5: nice: -21 is out of range (use an integer from -20 to 19)"},
      {"ionice unknown", Job("ionice = \"slow\""), "ionice",
       "jobs.d/a.toml:5: ionice: \"slow\" is not an I/O class (use idle, best-effort or realtime, "
       "optionally with a level :0 (first) to :7, e.g. \"best-effort:7\")"},
      {"name in defaults", "[defaults]\nname = \"x\"\n", "defaults.name",
       "jobs.d/a.toml:2: defaults.name: a name cannot be a default (give each [[job]] its own "
       "name)"},
      {"no name", "[[job]]\nschedule = \"@daily\"\ncommand = \"c\"\n", "name",
       "jobs.d/a.toml:1: name: a job needs a name (1 to 64 characters from A-Z a-z 0-9 _ . -)"},
      {"bad name", "[[job]]\nname = \"a b\"\n", "name",
       "jobs.d/a.toml:2: name: \"a b\" is not a job name (use 1 to 64 characters from A-Z a-z "
       "0-9 _ . -)"},
      {"long name", "[[job]]\nname = \"" + std::string(65, 'a') + "\"\n", "name",
       "jobs.d/a.toml:2: name: a value of 65 bytes is over the limit of 64 bytes"},
      {"name not a string", "[[job]]\nname = 7\n", "name",
       "jobs.d/a.toml:2: name: 7 is not a string (use 1 to 64 characters from A-Z a-z 0-9 _ . -)"},
      {"no schedule", "\n[[job]]\nname = \"j\"\ncommand = \"c\"\n", "schedule",
       "jobs.d/a.toml:2: schedule: job \"j\" needs a schedule (5 or 6 cron fields, a macro such "
       "as @daily, @every DURATION or @reboot)"},
      {"bad schedule", "[[job]]\nname = \"j\"\nschedule = \"60 * * * *\"\n", "schedule",
       "jobs.d/a.toml:3: schedule: minute \"60\": 60 is out of range 0..59"},
      {"impossible day", "[[job]]\nname = \"j\"\nschedule = \"0 0 30 2 *\"\n", "schedule",
       "jobs.d/a.toml:3: schedule: day-of-month \"30\" with month \"2\" can never fire: no allowed "
       "month has a day 30"},
      {"never fires with dst = skip",
       "[[job]]\nname = \"j\"\ncommand = \"c\"\nschedule = \"30 2 * 3 SUN#5\"\n"
       "timezone = \"Europe/Berlin\"\ndst = \"skip\"\n",
       "schedule",
       "jobs.d/a.toml:4: schedule: \"30 2 * 3 SUN#5\" never fires in Europe/Berlin with dst = "
       "skip (no firing within 50 years)"},
      {"unknown zone", Job("timezone = \"Europe/Berln\""), "timezone",
       "jobs.d/a.toml:5: timezone: \"Europe/Berln\" is not a known time zone (not in the system "
       "tz database)"},
      {"zone as a path", Job("timezone = \"/etc/localtime\""), "timezone",
       "jobs.d/a.toml:5: timezone: \"/etc/localtime\" is not a time zone name (use an IANA zone "
       "such as Europe/Berlin)"},
      {"empty zone", Job("timezone = \"\""), "timezone",
       "jobs.d/a.toml:5: timezone: \"\" is empty (use an IANA zone such as Europe/Berlin or UTC)"},
      {"bad dst", Job("dst = \"never\""), "dst",
       "jobs.d/a.toml:5: dst: \"never\" is not a DST policy (use cron, skip, first or both)"},
      {"no command", "[[job]]\nname = \"j\"\nschedule = \"@daily\"\n", "command",
       "jobs.d/a.toml:1: command: job \"j\" needs a command (command = \"...\" run by its shell, "
       "argv = [\"program\", \"arg\"...], or stages = [{ name = \"...\", command = \"...\" }, "
       "...])"},
      {"both", Job("argv = [\"x\"]"), "argv",
       "jobs.d/a.toml:5: argv: a job runs either command (by its shell) or argv (directly), not "
       "both"},
      {"both in defaults", "[defaults]\nargv = [\"x\"]\ncommand = \"y\"\n", "defaults.argv",
       "jobs.d/a.toml:3: defaults.argv: a job runs either command (by its shell) or argv "
       "(directly), not both"},
      {"empty command", Job("").replace(Job("").find("\"c\""), 3, "\" \""), "command",
       "jobs.d/a.toml:4: command: \" \" is empty (use a shell command line)"},
      {"NUL in command", Job("").replace(Job("").find("\"c\""), 3, "\"a\\u0000b\""), "command",
       "jobs.d/a.toml:4: command: \"a\\x00b\" contains a NUL byte (use a shell command line)"},
      {"empty argv", "[[job]]\nname = \"j\"\nschedule = \"@daily\"\nargv = []\n", "argv",
       "jobs.d/a.toml:4: argv: the array is empty (use an array of strings, the program first, "
       "e.g. [\"/usr/bin/rsync\", \"-a\"])"},
      {"argv with a number", "[[job]]\nname = \"j\"\nschedule = \"@daily\"\nargv = [\"a\", 1]\n",
       "argv[1]",
       "jobs.d/a.toml:4: argv[1]: 1 is not a string (use an array of strings, the program first, "
       "e.g. [\"/usr/bin/rsync\", \"-a\"])"},
      {"argv empty program", "[[job]]\nname = \"j\"\nschedule = \"@daily\"\nargv = [\"\"]\n",
       "argv[0]", "jobs.d/a.toml:4: argv[0]: the program is \"\" (use a program name or path)"},
      {"shell with argv",
       "[[job]]\nname = \"j\"\nschedule = \"@daily\"\nargv = [\"a\"]\n"
       "shell = \"/bin/bash\"\n",
       "shell",
       "jobs.d/a.toml:5: shell: shell applies to command only; this table gives argv, which runs "
       "directly"},
      {"shell with default argv",
       "[defaults]\nargv = [\"a\"]\n[[job]]\nname = \"j\"\nschedule = \"@daily\"\n"
       "shell = \"/bin/bash\"\n",
       "shell",
       "jobs.d/a.toml:6: shell: shell applies to command only; this job runs argv (from "
       "[defaults]) directly"},
      {"relative shell", Job("shell = \"bash\""), "shell",
       "jobs.d/a.toml:5: shell: \"bash\" is not an absolute path (use a path from /, or leave it "
       "out for the default)"},
      {"empty shell", Job("shell = \"\""), "shell",
       "jobs.d/a.toml:5: shell: \"\" is not a shell (use an absolute path such as /bin/sh)"},
      {"bad user", Job("user = \"root:x\""), "user",
       "jobs.d/a.toml:5: user: \"root:x\" is not a user name (use a name from the password "
       "database, without spaces, ':' or '/')"},
      {"empty user", Job("user = \"\""), "user",
       "jobs.d/a.toml:5: user: \"\" is not a user name (use a name from the password database, "
       "without spaces, ':' or '/')"},
      {"relative cwd", Job("cwd = \"srv\""), "cwd",
       "jobs.d/a.toml:5: cwd: \"srv\" is not an absolute path (use a path from /, or leave it "
       "out for the default)"},
      {"env not a table", Job("env = [\"A=1\"]"), "env",
       "jobs.d/a.toml:5: env: an array is not a table (use env = { NAME = \"value\", ... })"},
      {"env bad name", Job("env = { \"A-B\" = \"1\" }"), "env.A-B",
       "jobs.d/a.toml:5: env.A-B: \"A-B\" is not a variable name (use A-Z a-z 0-9 _, not "
       "starting with a digit)"},
      {"env digit name", Job("env = { 1X = \"1\" }"), "env.1X",
       "jobs.d/a.toml:5: env.1X: \"1X\" is not a variable name (use A-Z a-z 0-9 _, not starting "
       "with a digit)"},
      {"env = in name", Job("env = { \"A=B\" = \"1\" }"), "env.\"A=B\"",
       "jobs.d/a.toml:5: env.\"A=B\": \"A=B\" is not a variable name (use A-Z a-z 0-9 _, not "
       "starting with a digit)"},
      {"env number value", Job("env = { A = 1 }"), "env.A",
       "jobs.d/a.toml:5: env.A: 1 is not a string (use a string value)"},
      {"env NUL value", Job("env = { A = \"\\u0000\" }"), "env.A",
       "jobs.d/a.toml:5: env.A: \"\\x00\" contains a NUL byte (use a string value)"},
      {"stdin not a string", Job("stdin = 1"), "stdin",
       "jobs.d/a.toml:5: stdin: 1 is not a string (use the text to feed to the command)"},
      {"bad queue", Job("queue = \"a/b\""), "queue",
       "jobs.d/a.toml:5: queue: \"a/b\" is not a queue name (use 1 to 64 characters from A-Z "
       "a-z 0-9 _ . -)"},
      {"priority out of range", Job("priority = 6"), "priority",
       "jobs.d/a.toml:5: priority: 6 is out of range (use an integer from 1 to 5)"},
      {"priority as a string", Job("priority = \"1\""), "priority",
       "jobs.d/a.toml:5: priority: \"1\" is not an integer (use an integer from 1 to 5)"},
      {"bad timeout", Job("timeout = \"2 hours\""), "timeout", "jobs.d/a.toml:5: timeout: "},
      {"negative timeout", Job("timeout = -1"), "timeout", "jobs.d/a.toml:5: timeout: "},
      {"float timeout", Job("timeout = 1.5"), "timeout",
       "jobs.d/a.toml:5: timeout: 1.5 is not a duration (use a string like \"10s\" or "
       "\"1m30s\")"},
      {"huge pending_ttl", Job("pending_ttl = \"36501d\""), "pending_ttl",
       "jobs.d/a.toml:5: pending_ttl: "},
      {"huge integer", Job("random_delay = 9223372036854775807"), "random_delay",
       "jobs.d/a.toml:5: random_delay: "},
      {"retries out of range", Job("retries = 1001"), "retries",
       "jobs.d/a.toml:5: retries: 1001 is out of range (use an integer from 0 to 1000)"},
      {"bad backoff", Job("backoff = \"linear\""), "backoff",
       "jobs.d/a.toml:5: backoff: \"linear\" is not a backoff (use fixed, exponential or "
       "progressive)"},
      {"backoff unknown part", Job("backoff = { kind = \"fixed\", bse = \"1s\" }"), "backoff.bse",
       "jobs.d/a.toml:5: backoff.bse: unknown key (allowed in backoff: kind, base, max, jitter)"},
      {"backoff bad base", Job("backoff = { base = \"soon\" }"), "backoff.base",
       "jobs.d/a.toml:5: backoff.base: "},
      {"backoff as a number", Job("backoff = 3"), "backoff",
       "jobs.d/a.toml:5: backoff: 3 is not a backoff (use fixed, exponential or progressive, or "
       "a table such as { kind = \"exponential\", base = \"30s\", max = \"30m\" })"},
      {"exit code out of range", Job("retry_on_exit = [256]"), "retry_on_exit",
       "jobs.d/a.toml:5: retry_on_exit: 256 is out of range (use an integer from 0 to 255)"},
      {"exit codes not an array", Job("no_retry_on_exit = 2"), "no_retry_on_exit",
       "jobs.d/a.toml:5: no_retry_on_exit: 2 is not an array (use exit codes, e.g. [75])"},
      {"bad overlap", Job("overlap = \"wait\""), "overlap",
       "jobs.d/a.toml:5: overlap: \"wait\" is not allowed (use skip, queue, allow or replace)"},
      {"bad misfire", Job("misfire = \"run-once\""), "misfire",
       "jobs.d/a.toml:5: misfire: \"run-once\" is not allowed (use skip, run_once or run_all)"},
      {"shards zero", Job("shards = 0"), "shards",
       "jobs.d/a.toml:5: shards: 0 is out of range (use an integer from 1 to 1000)"},
      {"shards past the limit", Job("shards = 1001"), "shards",
       "jobs.d/a.toml:5: shards: 1001 is out of range (use an integer from 1 to 1000)"},
      {"shards not a number", Job("shards = \"6\""), "shards",
       "jobs.d/a.toml:5: shards: \"6\" is not an integer (use an integer from 1 to 1000)"},
      {"max_catch_up zero", Job("max_catch_up = 0"), "max_catch_up",
       "jobs.d/a.toml:5: max_catch_up: 0 is out of range (use an integer from 1 to 1000)"},
      {"bad max_lateness", Job("max_lateness = true"), "max_lateness",
       "jobs.d/a.toml:5: max_lateness: true is not a duration (use a string like \"10s\" or "
       "\"1m30s\")"},
      {"empty hook", Job("on_failure = \"\""), "on_failure",
       "jobs.d/a.toml:5: on_failure: 0 bytes is not allowed (use a command of 1..4096 bytes)"},
      {"hook not a string", Job("on_success = [\"x\"]"), "on_success",
       "jobs.d/a.toml:5: on_success: an array is not a string (use a shell command line)"},
      {"mailto with a header", Job("mailto = \"a@b\\nBcc: c@d\""), "mailto",
       "jobs.d/a.toml:5: mailto: \"a@b\\x0aBcc: c@d\" is not a mail address (use addresses "
       "separated by commas, e.g. \"ops@example.com\")"},
      {"mailto as an option", Job("mailto = \"-oQ/tmp\""), "mailto",
       "jobs.d/a.toml:5: mailto: \"-oQ/tmp\" is not a mail address "},
      {"bad mail_on", Job("mail_on = \"never\""), "mail_on",
       "jobs.d/a.toml:5: mail_on: \"never\" is not allowed (use failure, always or output)"},
      {"short expect_success_within", Job("expect_success_within = \"500ms\""),
       "expect_success_within",
       "jobs.d/a.toml:5: expect_success_within: \"500ms\" is too short (use a duration of 1s or "
       "more, e.g. \"26h\" for a daily job)"},
      {"enabled as a string", Job("enabled = \"no\""), "enabled",
       "jobs.d/a.toml:5: enabled: \"no\" is not true or false"},
      {"duplicate names",
       Job("") + "\n[[job]]\nschedule = \"@daily\"\ncommand = \"d\"\nname = \"j\"\n", "name",
       "jobs.d/a.toml:10: name: \"j\" is already the name of the job at line 1 (names must be "
       "unique)"},
      {"use as a count", Job("use = 1"), "use",
       "jobs.d/a.toml:5: use: 1 is not a table of units (use e.g. { gpu = 1 })"},
      {"use of a bad name", Job("use = { GPU = 1 }"), "use",
       "jobs.d/a.toml:5: use: \"GPU\" is not a resource name (use 1 to 32 characters from a-z "
       "0-9 _, starting with a letter)"},
      {"use of no unit", Job("use = { gpu = 0 }"), "use.gpu",
       "jobs.d/a.toml:5: use.gpu: 0 is out of range (use an integer from 1 to 1024)"},
      {"use of a text count", Job("use = { gpu = \"1\" }"), "use.gpu",
       "jobs.d/a.toml:5: use.gpu: "},
      {"job list with a value", "job = [1]\n", "job",
       "jobs.d/a.toml:1: job: an array is not a list of jobs (use a [[job]] table for each job)"},
      {"not UTF-8", Job("user = \"\xff\""), "", "jobs.d/a.toml:5: "},
  };
  for (const Bad& c : cases) {
    CAPTURE(c.name);
    Status s = MustFail(c.text);
    CHECK(s.field() == c.field);
    const std::string want = c.message;
    if (want.back() == ' ') {  // a reason from another parser: only its start is ours
      CHECK_MESSAGE(s.message().rfind(want, 0) == 0, s.message());
    } else {
      CHECK(s.message() == want);
    }
  }
}

TEST_CASE("job file: every error of the file is reported, one line each, in file order") {
  const std::string text =
      "[[job]]\nname = \"a\"\nschedule = \"@daily\"\ncommand = \"c\"\nnice = 99\n"
      "comand = \"x\"\n"
      "[[job]]\nname = \"b\"\nschedule = \"@daily\"\ncommand = \"c\"\n"
      "[[job]]\nname = \"c\"\nschedule = \"61 * * * *\"\ncommand = \"c\"\n"
      "[[job]]\nname = \"b\"\nschedule = \"@daily\"\n";
  const Status s = MustFail(text);
  CHECK(s.field() == "nice");
  std::vector<std::string> lines;
  for (size_t start = 0, end; start <= s.message().size(); start = end + 1) {
    end = std::min(s.message().find('\n', start), s.message().size());
    lines.push_back(s.message().substr(start, end - start));
  }
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].rfind("jobs.d/a.toml:5: nice: ", 0) == 0);
  CHECK(lines[1].rfind("jobs.d/a.toml:6: comand: unknown key", 0) == 0);
  CHECK(lines[2].rfind("jobs.d/a.toml:13: schedule: ", 0) == 0);
  CHECK(lines[3].rfind("jobs.d/a.toml:15: command: job \"b\" needs a command", 0) == 0);
}

TEST_CASE("job file: past twenty errors, the rest are counted") {
  std::string text;
  for (int i = 0; i < 25; ++i)
    text += "[[job]]\nname = \"j" + std::to_string(i) +
            "\"\nschedule = \"@daily\"\ncommand = \"c\"\nnice = 99\n";
  const std::string m = MustFail(text).message();
  CHECK(std::count(m.begin(), m.end(), '\n') == 20);
  CHECK(m.substr(m.rfind('\n') + 1) == "jobs.d/a.toml: 5 more errors (the first 20 are shown)");
}

TEST_CASE("job file: sizes past the limits are refused") {
  SUBCASE("a file over kMaxJobFileBytes") {
    std::string text = Job("") + "# " + std::string(kMaxJobFileBytes, 'x') + "\n";
    Status s = MustFail(text);
    CHECK(s.message() == "jobs.d/a.toml: the file is " + std::to_string(text.size()) +
                             " bytes, over the limit of 4194304 bytes for a job file");
  }
  SUBCASE("an argument over MAX_ARG_STRLEN") {
    Status s = MustFail("[[job]]\nname = \"j\"\nschedule = \"@daily\"\nargv = [\"a\", \"" +
                        std::string(kMaxArgStrlen, 'x') + "\"]\n");
    CHECK(s.message() ==
          "jobs.d/a.toml:4: argv[1]: a value of 131072 bytes is over the limit of "
          "131071 bytes");
  }
  SUBCASE("an environment entry over MAX_ARG_STRLEN") {
    const std::string name(kMaxArgStrlen, 'A');
    Status s = MustFail(Job("env = { " + name + " = \"\" }"));
    CHECK(s.message().rfind("jobs.d/a.toml:5: env.\"AAAA", 0) == 0);
    CHECK(s.message().find("\"... (131072 bytes): a name of 131072 bytes is over the limit of "
                           "131070 bytes") != std::string::npos);
    CHECK(s.message().size() < 400);  // the key is cut, as values are
    Status v = MustFail(Job("env = { A = \"" + std::string(kMaxArgStrlen - 2, 'x') + "\" }"));
    CHECK(v.message() ==
          "jobs.d/a.toml:5: env.A: a value of 131070 bytes is over the limit of 131069 bytes");
    MustParseJobs(Job("env = { A = \"" + std::string(kMaxArgStrlen - 3, 'x') + "\" }"));
  }
  SUBCASE("too many arguments") {
    std::string argv = "argv = [\"a\"";
    for (size_t i = 0; i < kMaxArgvCount; ++i) argv += ",\"\"";
    Status s = MustFail("[[job]]\nname = \"j\"\nschedule = \"@daily\"\n" + argv + "]\n");
    CHECK(s.message() == "jobs.d/a.toml:4: argv: 4097 arguments are over the limit of 4096");
  }
  SUBCASE("arguments over kMaxArgvBytes together") {
    std::string argv = "argv = [\"a\"";
    const std::string big(100000, 'x');
    for (int i = 0; i < 11; ++i) argv += ",\"" + big + "\"";
    Status s = MustFail("[[job]]\nname = \"j\"\nschedule = \"@daily\"\n" + argv + "]\n");
    CHECK(s.message() ==
          "jobs.d/a.toml:4: argv: the arguments are over the limit of 1048576 bytes together");
  }
  SUBCASE("an environment over kMaxEnvBytes together") {
    std::string env = "env = { A0 = \"\"";
    const std::string big(100000, 'x');
    for (int i = 1; i <= 11; ++i) env += ", A" + std::to_string(i) + " = \"" + big + "\"";
    Status s = MustFail(Job(env + " }"));
    CHECK(s.message() ==
          "jobs.d/a.toml:5: env: the variables are over the limit of 1048576 bytes together");
  }
}

TEST_CASE("job file: deep nesting and odd bytes are refused, never crash") {
  std::string deep = "argv = ";
  for (int i = 0; i < 200; ++i) deep += "[";
  for (int i = 0; i < 200; ++i) deep += "]";
  Result<JobFile> r = ParseJobFile("[[job]]\nname = \"j\"\nschedule = \"@daily\"\n" + deep, "f");
  CHECK_FALSE(r.ok());
  std::string nested_env = "env = { A = { B = { C = \"x\" } } }";
  CHECK(MustFail(Job(nested_env)).message() ==
        "jobs.d/a.toml:5: env.A: a table is not a string (use a string value)");
  CHECK_FALSE(ParseJobFile(std::string("[[job]]\nname = \"j\0\"\n", 20), "f").ok());
  CHECK_FALSE(ParseJobFile("\xef\xbb\xbf[[job]]\nname = \"\xc3\x28\"\n", "f").ok());
}

TEST_CASE("job file: jobs.example.toml loads with the jobs it documents") {
  const std::string path = std::string(TQ_TEST_DATA_DIR) + "/../../jobs.example.toml";
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), path);
  std::stringstream text;
  text << in.rdbuf();
  Result<JobFile> r = ParseJobFile(text.str(), "jobs.example.toml");
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  std::vector<std::string> names;
  for (const JobDef& j : r->jobs) names.push_back(j.name);
  CHECK(names == std::vector<std::string>{"nightly-report", "warm-cache", "queue-health",
                                          "mirror-sync", "berlin-backup", "rotate-logs",
                                          "nightly-backup", "settle-orders"});
  for (const JobDef& j : r->jobs) CHECK(j.queue == "cron");  // from [defaults]
  CHECK(r->jobs[0].resources.nice == 10);
  CHECK(r->jobs[0].resources.memory_max == 2LL << 30);
  CHECK(r->jobs[0].notify.mailto == "ops@example.com");
  CHECK(r->jobs[0].notify.on_failure.has_value());
  CHECK(r->jobs[0].expect_success_within_ms == 26 * 3600 * 1000LL);
  CHECK(r->jobs.back().shards == 6);
  const JobDef& backup = r->jobs[r->jobs.size() - 2];
  REQUIRE(backup.stages.size() == 4);
  CHECK(backup.stages[2].retry.retries == std::optional<int>(5));
  CHECK_FALSE(backup.command.has_value());
}

TEST_CASE("job file: notification keys, and defaults for them") {
  JobFile f = MustParseJobs(R"([defaults]
mailto = "ops@example.com"
on_failure = "echo failed"

[[job]]
name = "a"
schedule = "@daily"
command = "a"
mail_on = "always"
expect_success_within = "26h"

[[job]]
name = "b"
schedule = "@daily"
command = "b"
on_failure = "echo b failed"
on_finish = "echo done"
on_success = "echo ok"
mailto = ""
)");
  REQUIRE(f.jobs.size() == 2);
  const NotifySpec& a = f.jobs[0].notify;
  CHECK(a.mailto == "ops@example.com");
  CHECK(a.mail_on == MailOn::kAlways);
  CHECK(a.on_failure == "echo failed");
  CHECK_FALSE(a.on_success.has_value());
  CHECK(f.jobs[0].expect_success_within_ms == 26 * 3600 * 1000LL);
  const NotifySpec& b = f.jobs[1].notify;
  CHECK(b.mailto.empty());
  CHECK(b.mail_on == MailOn::kFailure);
  CHECK(b.on_failure == "echo b failed");
  CHECK(b.on_success == "echo ok");
  CHECK(b.on_finish == "echo done");
  CHECK(f.jobs[1].expect_success_within_ms == 0);
}

}  // namespace
}  // namespace tq
