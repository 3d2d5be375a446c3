// Stage tables (SPEC 13): every key of a stage, in a stages file and in a job file's `stages`,
// and each refusal's field, line and message.
#include "core/jobs/stage_tables.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/jobs/job_file.h"
#include "core/jobs/stages_file.h"

namespace tq {
namespace {

std::vector<StageSpec> MustRead(const std::string& text) {
  Result<std::vector<StageSpec>> r = ParseStagesFile(text, "stages.toml");
  REQUIRE_MESSAGE(r.ok(), r.status().message());
  return *r;
}

// A stage that is good but for what each case adds, on its line 4.
std::string Stage(const std::string& extra) {
  return "[[stages]]\nname = \"s\"\ncommand = \"c\"\n" + extra + "\n";
}

TEST_CASE("stage tables: every key of a stage") {
  const std::vector<StageSpec> stages = MustRead(R"([[stages]]
name = "dump"
command = "pg_dump db > $TQ_CONTEXT/db.sql"
timeout = "1h"

[[stages]]
name = "upload"
argv = ["rclone", "copy", "$TQ_CONTEXT/db.sql", "remote:"]
retries = 5
backoff = { kind = "fixed", base = "30s" }
retry_on_exit = [75]
no_retry_on_exit = [2]

[[stages]]
name = "prune.old-1_x"
argv = ["prune"]
timeout = 0
backoff = "progressive"
)");
  REQUIRE(stages.size() == 3);
  const StageSpec& dump = stages[0];
  CHECK(dump.name == "dump");
  CHECK(dump.shell == std::optional<std::string>("pg_dump db > $TQ_CONTEXT/db.sql"));
  CHECK(dump.argv.empty());
  CHECK(dump.timeout_ms == std::optional<int64_t>(3600000));
  CHECK_FALSE(dump.retry.retries.has_value());
  CHECK_FALSE(dump.retry.backoff.has_value());
  const StageSpec& upload = stages[1];
  CHECK(upload.name == "upload");
  CHECK_FALSE(upload.shell.has_value());
  CHECK(upload.argv == std::vector<std::string>{"rclone", "copy", "$TQ_CONTEXT/db.sql", "remote:"});
  CHECK_FALSE(upload.timeout_ms.has_value());
  CHECK(upload.retry.retries == std::optional<int>(5));
  CHECK(upload.retry.backoff == std::optional<BackoffKind>(BackoffKind::kFixed));
  CHECK(upload.retry.base_ms == std::optional<int64_t>(30000));
  CHECK_FALSE(upload.retry.max_ms.has_value());
  CHECK(upload.retry.retry_on_exit == std::optional(std::vector<int>{75}));
  CHECK(upload.retry.no_retry_on_exit == std::optional(std::vector<int>{2}));
  CHECK(stages[2].name == "prune.old-1_x");
  CHECK(stages[2].timeout_ms == std::optional<int64_t>(0));
  CHECK(stages[2].retry.backoff == std::optional<BackoffKind>(BackoffKind::kProgressive));
}

TEST_CASE("stage tables: a job gives its stages as an array of inline tables") {
  Result<JobFile> f = ParseJobFile(R"([defaults]
command = "from the defaults"

[[job]]
name = "nightly-backup"
schedule = "@daily"
shell = "/bin/bash"
stages = [{ name = "dump", command = "pg_dump db > $TQ_CONTEXT/db.sql" },
          { name = "upload", argv = ["rclone", "copy"], retries = 5, timeout = "2h" }]
)",
                                   "jobs.d/a.toml");
  REQUIRE_MESSAGE(f.ok(), f.status().message());
  REQUIRE(f->jobs.size() == 1);
  const JobDef& j = f->jobs[0];
  CHECK_FALSE(j.command.has_value());  // the default's is dropped
  CHECK(j.argv.empty());
  CHECK(j.shell == "/bin/bash");
  REQUIRE(j.stages.size() == 2);
  CHECK(j.stages[0].name == "dump");
  CHECK(j.stages[0].shell == std::optional<std::string>("pg_dump db > $TQ_CONTEXT/db.sql"));
  CHECK(j.stages[1].argv == std::vector<std::string>{"rclone", "copy"});
  CHECK(j.stages[1].retry.retries == std::optional<int>(5));
  CHECK(j.stages[1].timeout_ms == std::optional<int64_t>(7200000));
}

struct BadStages {
  const char* name;
  std::string text;
  const char* field;
  const char* message;  // ending in a space: only the start (the rest is another parser's)
};

TEST_CASE("stage tables: refusals name the file, the line, the key and what is allowed") {
  std::string many;
  for (size_t i = 0; i <= kMaxStages; ++i)
    many += "[[stages]]\nname = \"s" + std::to_string(i) + "\"\ncommand = \"c\"\n";
  std::string big;
  for (int i = 0; i < 9; ++i)
    big += "[[stages]]\nname = \"b" + std::to_string(i) + "\"\ncommand = \"" +
           std::string(120000, 'x') + "\"\n";
  const std::vector<BadStages> cases = {
      {"unknown key", Stage("comand = \"x\""), "stages[0].comand",
       "stages.toml:4: stages[0].comand: unknown key (allowed in a stage: name, command, argv, "
       "timeout, retries, backoff, retry_on_exit, no_retry_on_exit)"},
      {"a job's key", Stage("queue = \"q\""), "stages[0].queue",
       "stages.toml:4: stages[0].queue: unknown key (allowed in a stage: name, command, argv, "
       "timeout, retries, backoff, retry_on_exit, no_retry_on_exit)"},
      {"bad name", "[[stages]]\nname = \"a b\"\ncommand = \"c\"\n", "stages[0].name",
       "stages.toml:2: stages[0].name: \"a b\" is not a stage name (use 1 to 64 of A-Z a-z 0-9 _ "
       ". -)"},
      {"name not a string", "[[stages]]\nname = 7\ncommand = \"c\"\n", "stages[0].name",
       "stages.toml:2: stages[0].name: 7 is not a string (use 1 to 64 of A-Z a-z 0-9 _ . -)"},
      {"long name", "[[stages]]\nname = \"" + std::string(65, 'a') + "\"\ncommand = \"c\"\n",
       "stages[0].name",
       "stages.toml:2: stages[0].name: a value of 65 bytes is over the limit of 64 bytes"},
      {"no name", "[[stages]]\ncommand = \"c\"\n", "stages[0].name",
       "stages.toml:1: stages[0].name: a stage needs a name (use 1 to 64 of A-Z a-z 0-9 _ . -)"},
      {"no command", "[[stages]]\nname = \"s\"\n", "stages[0].command",
       "stages.toml:1: stages[0].command: stage \"s\" needs a command (command = \"...\" run by "
       "the shell, or argv = [\"program\", \"arg\"...])"},
      {"both commands", Stage("argv = [\"x\"]"), "stages[0].argv",
       "stages.toml:4: stages[0].argv: a stage runs either command (by the shell) or argv "
       "(directly), not both"},
      {"a name twice", Stage("") + "[[stages]]\nname = \"s\"\nargv = [\"x\"]\n", "stages[1].name",
       "stages.toml:6: stages[1].name: \"s\" is already the name of stages[0] (names must be "
       "unique in a task)"},
      {"blank command", "[[stages]]\nname = \"s\"\ncommand = \" \"\n", "stages[0].command",
       "stages.toml:3: stages[0].command: \" \" is empty (use a shell command line)"},
      {"empty argv", "[[stages]]\nname = \"s\"\nargv = []\n", "stages[0].argv",
       "stages.toml:3: stages[0].argv: the array is empty (use an array of strings, the program "
       "first, e.g. [\"/usr/bin/rsync\", \"-a\"])"},
      {"no program", "[[stages]]\nname = \"s\"\nargv = [\"\", \"x\"]\n", "stages[0].argv[0]",
       "stages.toml:3: stages[0].argv[0]: the program is \"\" (use a program name or path)"},
      {"bad timeout", Stage("timeout = \"soon\""), "stages[0].timeout",
       "stages.toml:4: stages[0].timeout: "},
      {"too many retries", Stage("retries = 1001"), "stages[0].retries",
       "stages.toml:4: stages[0].retries: 1001 is out of range (use an integer from 0 to 1000)"},
      {"bad backoff", Stage("backoff = \"linear\""), "stages[0].backoff",
       "stages.toml:4: stages[0].backoff: \"linear\" is not a backoff (use fixed, exponential or "
       "progressive)"},
      {"bad backoff part", Stage("backoff = { kind = \"fixed\", step = \"1s\" }"),
       "stages[0].backoff.step",
       "stages.toml:4: stages[0].backoff.step: unknown key (allowed in backoff: kind, base, max, "
       "jitter)"},
      {"bad exit code", Stage("retry_on_exit = [256]"), "stages[0].retry_on_exit",
       "stages.toml:4: stages[0].retry_on_exit: "},
      {"not a list", "stages = 3\n", "stages",
       "stages.toml:1: stages: 3 is not a list of stages (use an array of tables, each with a "
       "name and a command: [{ name = \"dump\", command = \"...\" }, ...])"},
      {"a list of numbers", "stages = [1]\n", "stages",
       "stages.toml:1: stages: an array is not a list of stages (use an array of tables, each "
       "with a name and a command: [{ name = \"dump\", command = \"...\" }, ...])"},
      {"an empty list", "stages = []\n", "stages",
       "stages.toml:1: stages: the array is empty (give at least one stage)"},
      {"too many", many, "stages", "stages.toml:1: stages: 65 stages are over the limit of 64"},
      {"commands too long together", big, "stages",
       "stages.toml:1: stages: the stages' commands are over the limit of 1048576 bytes "
       "together"},
      {"unknown top key", "stage = 1\n" + Stage(""), "stage",
       "stages.toml:1: stage: unknown key (allowed at the top of a stages file: [[stages]])"},
      {"no stages", "# nothing\n", "stages",
       "stages.toml: no stages (give a [[stages]] table for each stage, with a name and a "
       "command or argv)"},
      {"syntax", "[[stages]\n", "", "stages.toml:1: "},
  };
  for (const BadStages& c : cases) {
    CAPTURE(c.name);
    Result<std::vector<StageSpec>> r = ParseStagesFile(c.text, "stages.toml");
    REQUIRE_MESSAGE(!r.ok(), "accepted: " << c.text);
    CHECK(r.status().code() == ErrorCode::kConfig);
    CHECK(r.status().field() == c.field);
    const std::string want = c.message;
    if (want.back() == ' ') {
      CHECK_MESSAGE(r.status().message().rfind(want, 0) == 0, r.status().message());
    } else {
      CHECK(r.status().message() == want);
    }
  }
}

TEST_CASE("stage tables: every error is reported, one line each, in file order") {
  const Result<std::vector<StageSpec>> r = ParseStagesFile(
      "[[stages]]\nname = \"a b\"\ncommand = \"c\"\nretries = -1\n"
      "[[stages]]\nname = \"x\"\n"
      "[[stages]]\nname = \"y\"\nargv = [\"y\"]\nfoo = 1\n",
      "stages.toml");
  REQUIRE(!r.ok());
  CHECK(r.status().message() ==
        "stages.toml:2: stages[0].name: \"a b\" is not a stage name (use 1 to 64 of A-Z a-z 0-9 "
        "_ . -)\n"
        "stages.toml:4: stages[0].retries: -1 is out of range (use an integer from 0 to 1000)\n"
        "stages.toml:5: stages[1].command: stage \"x\" needs a command (command = \"...\" run by "
        "the shell, or argv = [\"program\", \"arg\"...])\n"
        "stages.toml:10: stages[2].foo: unknown key (allowed in a stage: name, command, argv, "
        "timeout, retries, backoff, retry_on_exit, no_retry_on_exit)");
}

TEST_CASE("stage tables: in a job file, with the job's refusals") {
  const std::string job = "[[job]]\nname = \"j\"\nschedule = \"@daily\"\n";
  const std::vector<BadStages> cases = {
      {"stages and command",
       job + "command = \"c\"\nstages = [{ name = \"a\", command = \"b\" }]\n", "stages",
       "jobs.d/a.toml:5: stages: a job runs either stages (each with its own command) or "
       "command, not both"},
      {"argv and stages", job + "stages = [{ name = \"a\", command = \"b\" }]\nargv = [\"x\"]\n",
       "stages",
       "jobs.d/a.toml:5: stages: a job runs either stages (each with its own command) or argv, "
       "not both"},
      {"stages as a default", "[defaults]\nstages = [{ name = \"a\", command = \"b\" }]\n",
       "defaults.stages",
       "jobs.d/a.toml:2: defaults.stages: stages cannot be a default (give each [[job]] its own "
       "stages)"},
      {"a bad stage on its own line",
       job + "stages = [\n  { name = \"a\", command = \"b\" },\n  { name = \"c\", argv = [\"d\"], "
             "retries = 1001 },\n]\n",
       "stages[1].retries",
       "jobs.d/a.toml:6: stages[1].retries: 1001 is out of range (use an integer from 0 to "
       "1000)"},
      {"a stage without a command", job + "stages = [{ name = \"a\" }]\n", "stages[0].command",
       "jobs.d/a.toml:4: stages[0].command: stage \"a\" needs a command (command = \"...\" run by "
       "the shell, or argv = [\"program\", \"arg\"...])"},
      {"stages not tables", job + "stages = [\"a\", \"b\"]\n", "stages",
       "jobs.d/a.toml:4: stages: an array is not a list of stages (use an array of tables, each "
       "with a name and a command: [{ name = \"dump\", command = \"...\" }, ...])"},
  };
  for (const BadStages& c : cases) {
    CAPTURE(c.name);
    Result<JobFile> r = ParseJobFile(c.text, "jobs.d/a.toml");
    REQUIRE_MESSAGE(!r.ok(), "accepted: " << c.text);
    CHECK(r.status().field() == c.field);
    CHECK(r.status().message() == c.message);
  }
}

TEST_CASE("stage tables: a job's shell may go with stages, whatever their commands") {
  Result<JobFile> f = ParseJobFile(
      "[[job]]\nname = \"j\"\nschedule = \"@daily\"\nshell = \"/bin/dash\"\n"
      "stages = [{ name = \"a\", argv = [\"true\"] }]\n",
      "jobs.d/a.toml");
  REQUIRE_MESSAGE(f.ok(), f.status().message());
  CHECK(f->jobs[0].shell == "/bin/dash");
}

}  // namespace
}  // namespace tq
