#include "cli/arg_checks.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace tq {
namespace {

// Parses `args` with an app holding a repeatable --label, an --id in 1..5, a --count without a
// check of its own, a --path that may hold any bytes, a --flag and the rest as extras; keeps the
// usage message of an error.
struct Parsed {
  std::vector<std::string> labels;
  int id = 0;
  long long count = 0;
  bool flag = false;
  std::string path;
  std::vector<std::string> extras;
  std::string error;
};

Parsed Parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app;
  app.prefix_command();
  app.add_option("-l,--label", p.labels);
  app.add_option("--id", p.id)->check(DecimalCheck({1, 5, "an id"}));
  app.add_option("--count", p.count);
  app.add_option("--path", p.path);
  app.add_flag("--flag", p.flag);
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

TEST_CASE("integer options are decimal and name what they allow") {
  CHECK(Parse({"--id", "3"}).id == 3);
  CHECK(
      Parse({"--id", "9"}).error ==
      "tq: --id: \"9\" is not an id: an id is a decimal number from 1 to 5 without leading zeros");
  for (const char* bad : {"x", "03", "0x3", "+3", " 3", "3 ", "", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK(Parse({"--id", bad}).error == "tq: --id: " + DecimalProblem(bad, {1, 5, "an id"}));
  }
}

TEST_CASE("an integer option without a DecimalCheck gets one for 0 to the largest int") {
  CHECK(Parse({"--count", "17"}).count == 17);
  CHECK(Parse({"--count", "0"}).count == 0);
  CHECK(Parse({"--count", "2147483647"}).count == 2147483647);
  CHECK(Parse({"--count", "017"}).error ==
        "tq: --count: \"017\" is not a decimal number from 0 to 2147483647 without leading zeros");
  CHECK(Parse({"--count", "2147483648"}).error.find("\"2147483648\" is not") != std::string::npos);
  CHECK(Parse({"--count", "-1"}).error.find("\"-1\" is not") != std::string::npos);
  CHECK(Parse({"--count", "0x10"}).error.find("\"0x10\" is not") != std::string::npos);
}

TEST_CASE("an option without its value, or a flag with one, says so") {
  CHECK(Parse({"--id"}).error == "tq: --id: a value is required");
  CHECK(Parse({"--flag=x"}).error == "tq: --flag: a flag takes no value, got \"x\"");
}

}  // namespace
}  // namespace tq
