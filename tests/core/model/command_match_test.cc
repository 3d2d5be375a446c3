#include "core/model/command_match.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TaskSpec Argv(std::vector<std::string> argv) {
  TaskSpec s;
  s.argv = std::move(argv);
  return s;
}

TaskSpec Shell(std::string text) {
  TaskSpec s;
  s.shell = std::move(text);
  return s;
}

TEST_CASE("CommandContains finds text in argv, shell and stages, ignoring ASCII case") {
  TaskSpec staged;
  staged.stages.resize(2);
  staged.stages[0].name = "fetch";
  staged.stages[0].argv = {"curl", "-o", "x"};
  staged.stages[1].name = "load";
  staged.stages[1].shell = "psql < x";
  struct Case {
    TaskSpec spec;
    std::string needle;
    bool found;
  };
  const Case cases[] = {
      {Argv({"backup", "--full"}), "", true},
      {Argv({"backup", "--full"}), "backup", true},
      {Argv({"backup", "--full"}), "BACKUP --F", true},  // across the space between arguments
      {Argv({"backup", "--full"}), "backup  --full", false},
      {Argv({"backup", "--full"}), "restore", false},
      {Shell("rsync -a /srv /mnt && echo done"), "ECHO DONE", true},
      {Shell("rsync"), "rsync -a", false},
      {Argv({"caf\xc3\xa9"}), "CAF\xc3\xa9", true},  // ASCII folded, other bytes as they are
      {Argv({"caf\xc3\xa9"}), "CAF\xc3\x89", false},
      {Argv({"a\xff"
             "b"}),
       "\xff", true},  // bytes that are not UTF-8 match as bytes
      {staged, "PSQL", true},
      {staged, "curl -o", true},
      {staged, "fetch", true},  // a stage's name
      {staged, "wget", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.needle);
    CHECK(CommandContains(c.spec, c.needle) == c.found);
  }
}

}  // namespace
}  // namespace tq
