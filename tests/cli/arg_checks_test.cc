#include "cli/arg_checks.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace tq {
namespace {

// Parses `args` with an app holding a repeatable --label, an --id in 1..5, a --count, a --path that
// may hold any bytes and the rest as extras; keeps the usage message of an error.
struct Parsed {
  std::vector<std::string> labels;
  int id = 0;
  long long count = 0;
  std::string path;
  std::vector<std::string> extras;
  std::string error;
};

Parsed Parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app;
  app.prefix_command();
  app.add_option("-l,--label", p.labels);
  app.add_option("--id", p.id)->check(IntRange(1, 5));
  app.add_option("--count", p.count);
  app.add_option("--path", p.path);
  app.add_flag("--flag");
  ApplyOptionRules(app, {"--path"});
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    p.error = UsageMessage(e);
  }
  p.extras = app.remaining();
  return p;
}

TEST_CASE("an option takes one value per occurrence, the rest is not swallowed") {
  const Parsed p = Parse({"-l", "x", "--label", "y", "--flag", "echo", "hi"});
  CHECK(p.error == "");
  CHECK(p.labels == std::vector<std::string>{"x", "y"});
  CHECK(p.extras == std::vector<std::string>{"echo", "hi"});
}

TEST_CASE("text values must be non-empty UTF-8, byte options are left alone") {
  CHECK(Parse({"--label", ""}).error == "tq: --label: the value must not be empty");
  CHECK(Parse({"--label", "a\xff"}).error ==
        "tq: --label: \"a\\xff\" is not valid UTF-8 (names, labels and keys are text)");
  const Parsed bytes = Parse({"--path", "/tmp/\xe9"});
  CHECK(bytes.error == "");
  CHECK(bytes.path == "/tmp/\xe9");
  CHECK(TextValueProblem("caf\xc3\xa9") == "");
}

TEST_CASE("integer ranges name their bounds") {
  CHECK(Parse({"--id", "3"}).id == 3);
  CHECK(Parse({"--id", "9"}).error == "tq: --id: 9 is out of range 1..5");
  CHECK(Parse({"--id", "x"}).error == "tq: --id: \"x\" is not an integer (1..5)");
  CHECK(Parse({"--id", "99999999999999999999"}).error.find("not an integer") != std::string::npos);
  CHECK(Parse({"--id", " 3"}).error.find("not an integer") != std::string::npos);
}

TEST_CASE("an option without its value, or a number that is not one, says so") {
  CHECK(Parse({"--id"}).error == "tq: --id: a value is required");
  CHECK(Parse({"--count", "x"}).error == "tq: --count: expected an integer, got \"x\"");
}

}  // namespace
}  // namespace tq
