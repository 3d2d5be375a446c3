// tq submit's command words: the task's own command, or stages from --stage NAME -- WORDS and
// --stage NAME --shell STRING; and each refusal, naming the flag.
#include "cli/commands/submit_stages.h"

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace tq {
namespace {

using Words = std::vector<std::string>;

CommandFlag StageFlag(const std::string& name) {
  return {true, name};
}
CommandFlag ShellFlag(const std::string& text) {
  return {false, text};
}

// A stage as a case writes it: its name, then argv, or shell when `shell` is set.
struct Want {
  std::string name;
  Words argv;
  std::optional<std::string> shell;
};

TEST_CASE("submit command: without --stage the words are the task's own command") {
  auto plain = ReadSubmitCommand({}, {"pg_dump", "--stage", "x", "--", "y"});
  REQUIRE(plain.ok());
  CHECK(plain->argv == Words{"pg_dump", "--stage", "x", "--", "y"});  // a program's own flags
  CHECK_FALSE(plain->shell.has_value());
  CHECK(plain->stages.empty());
  auto shell = ReadSubmitCommand({ShellFlag("echo hi | wc")}, {});
  REQUIRE(shell.ok());
  CHECK(shell->shell == std::optional<std::string>("echo hi | wc"));
  CHECK(shell->argv.empty());
}

TEST_CASE("submit command: each --stage NAME takes the words after its -- or its --shell") {
  struct Case {
    const char* what;
    std::vector<CommandFlag> flags;  // what the option parser met before the first --
    Words words;                     // the rest
    std::vector<Want> stages;
  };
  const Case cases[] = {
      {"the spec's example",
       {StageFlag("dump")},
       {"pg_dump", "db", "--stage", "gz", "--", "gzip", "$TQ_CONTEXT/db.sql"},
       {{"dump", {"pg_dump", "db"}, {}}, {"gz", {"gzip", "$TQ_CONTEXT/db.sql"}, {}}}},
      {"shells before the first --",
       {StageFlag("a"), ShellFlag("echo a > f"), StageFlag("b"), ShellFlag("cat f")},
       {},
       {{"a", {}, "echo a > f"}, {"b", {}, "cat f"}}},
      {"a shell, then words",
       {StageFlag("a"), ShellFlag("make")},
       {"--stage", "b", "--", "ls", "-l", "--", "x"},
       {{"a", {}, "make"}, {"b", {"ls", "-l", "--", "x"}, {}}}},
      {"words, then shells after the first --",
       {StageFlag("a")},
       {"true", "--stage", "b", "--shell", "echo b", "--stage=c", "--shell=echo c"},
       {{"a", {"true"}, {}}, {"b", {}, "echo b"}, {"c", {}, "echo c"}}},
      {"the last stage's --shell, then more stages",
       {StageFlag("a"), ShellFlag("x"), StageFlag("b")},
       {"y", "--stage", "c", "--", "z"},
       {{"a", {}, "x"}, {"b", {"y"}, {}}, {"c", {"z"}, {}}}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto r = ReadSubmitCommand(c.flags, c.words);
    REQUIRE_MESSAGE(r.ok(), r.status().message());
    CHECK(r->argv.empty());
    CHECK_FALSE(r->shell.has_value());
    REQUIRE(r->stages.size() == c.stages.size());
    for (size_t i = 0; i < c.stages.size(); ++i) {
      CAPTURE(i);
      CHECK(r->stages[i].name == c.stages[i].name);
      CHECK(r->stages[i].argv == c.stages[i].argv);
      CHECK(r->stages[i].shell == c.stages[i].shell);
    }
  }
}

TEST_CASE("submit command: refusals name the flag, the value and what is allowed") {
  struct Case {
    const char* what;
    std::vector<CommandFlag> flags;
    Words words;
    const char* field;
    const char* message;
  };
  const Case cases[] = {
      {"a bad name",
       {StageFlag("a b")},
       {"true"},
       "--stage",
       "--stage: \"a b\" is not a stage name (1 to 64 of A-Z a-z 0-9 _ . -)"},
      {"a bad name after --",
       {StageFlag("a")},
       {"true", "--stage", "b/c", "--", "x"},
       "--stage",
       "--stage: \"b/c\" is not a stage name (1 to 64 of A-Z a-z 0-9 _ . -)"},
      {"a name twice",
       {StageFlag("a")},
       {"true", "--stage", "a", "--", "x"},
       "--stage",
       "--stage: \"a\" names two stages (names are unique in a task)"},
      {"no command",
       {StageFlag("a")},
       {},
       "--stage",
       "--stage a: a command is required (--stage a -- COMMAND [ARG...], or --stage a --shell "
       "STRING)"},
      {"no command before the next stage",
       {StageFlag("a"), StageFlag("b")},
       {"x"},
       "--stage",
       "--stage a: a command is required (--stage a -- COMMAND [ARG...], or --stage a --shell "
       "STRING)"},
      {"no words after --",
       {StageFlag("a")},
       {"x", "--stage", "b", "--"},
       "--stage",
       "--stage b: a command is required (--stage b -- COMMAND [ARG...], or --stage b --shell "
       "STRING)"},
      {"no -- after a later --stage",
       {StageFlag("a")},
       {"x", "--stage", "b", "gzip", "f"},
       "--stage",
       "--stage b: its command goes after \"--\" (--stage b -- COMMAND [ARG...], or --stage b "
       "--shell STRING), not before \"gzip\""},
      {"--stage without its name",
       {StageFlag("a")},
       {"x", "--stage"},
       "--stage",
       "--stage: a value is required"},
      {"--shell without its string",
       {StageFlag("a")},
       {"x", "--stage", "b", "--shell"},
       "--shell",
       "--shell: a value is required"},
      {"an empty --shell",
       {StageFlag("a")},
       {"x", "--stage", "b", "--shell", ""},
       "--shell",
       "--shell: the value must not be empty"},
      {"a shell and words",
       {StageFlag("a"), ShellFlag("x")},
       {"y"},
       "--stage",
       "--stage a: give either a command after -- or --shell STRING, not both (--stage a -- "
       "COMMAND [ARG...], or --stage a --shell STRING)"},
      {"two shells",
       {StageFlag("a"), ShellFlag("x"), ShellFlag("y")},
       {},
       "--stage",
       "--stage a: give either a command after -- or --shell STRING, not both (--stage a -- "
       "COMMAND [ARG...], or --stage a --shell STRING)"},
      {"a shell, then words after --",
       {StageFlag("a")},
       {"x", "--stage", "b", "--shell", "y", "z"},
       "--stage",
       "--stage b: give either a command after -- or --shell STRING, not both (--stage b -- "
       "COMMAND [ARG...], or --stage b --shell STRING)"},
      {"the task's --shell and stages",
       {ShellFlag("x"), StageFlag("a")},
       {"y"},
       "--shell",
       "--shell: given before the first --stage, it would be the task's own command, but a task "
       "with stages runs only its stages' commands (give --shell after the --stage NAME it "
       "belongs to)"},
      {"the task's --shell twice",
       {ShellFlag("x"), ShellFlag("y")},
       {},
       "--shell",
       "--shell: given twice (give one command; each stage of a task with stages takes its own: "
       "--stage NAME --shell STRING)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    auto r = ReadSubmitCommand(c.flags, c.words);
    REQUIRE_MESSAGE(!r.ok(), c.what);
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == c.field);
    CHECK(r.status().message() == c.message);
  }
}

TEST_CASE("submit command: --stages FILE reads [[stages]], refusing with exit 2 and FILE:LINE") {
  char dir_template[] = "/tmp/tq-stages-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string good = dir + "/good.toml";
  const std::string bad = dir + "/bad.toml";
  std::ofstream(good) << "[[stages]]\nname = \"dump\"\ncommand = \"pg_dump db\"\n"
                         "[[stages]]\nname = \"gz\"\nargv = [\"gzip\", \"db.sql\"]\n";
  std::ofstream(bad) << "[[stages]]\nname = \"dump\"\ncomand = \"pg_dump db\"\n";

  auto stages = ReadStagesFile(good);
  REQUIRE_MESSAGE(stages.ok(), stages.status().message());
  REQUIRE(stages->size() == 2);
  CHECK((*stages)[0].shell == std::optional<std::string>("pg_dump db"));
  CHECK((*stages)[1].argv == Words{"gzip", "db.sql"});

  auto refused = ReadStagesFile(bad);
  REQUIRE(!refused.ok());
  CHECK(refused.status().code() == ErrorCode::kInvalid);
  CHECK(refused.status().field() == "--stages");
  CHECK(refused.status().message() ==
        bad +
            ":3: stages[0].comand: unknown key (allowed in a stage: name, command, argv, "
            "timeout, retries, backoff, retry_on_exit, no_retry_on_exit)");

  auto missing = ReadStagesFile(dir + "/absent.toml");
  REQUIRE(!missing.ok());
  CHECK(missing.status().code() == ErrorCode::kInvalid);
  CHECK(missing.status().message() ==
        "--stages: " + dir + "/absent.toml: cannot open: No such file or directory");

  unlink(good.c_str());
  unlink(bad.c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace tq
