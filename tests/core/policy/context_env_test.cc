// What a stage passes on: the KEY=VALUE lines of $TQ_CONTEXT/env.
#include "core/policy/context_env.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

using Lines = std::vector<std::string>;

TEST_CASE("context env: lines, comments, export and CRLF, refusals by line and name") {
  struct Case {
    std::string text;
    Lines entries;
    Lines refused;
  };
  const std::string long_name(kMaxContextEnvNameBytes + 1, 'N');
  const std::string longest_name(kMaxContextEnvNameBytes, 'N');
  const std::string longest_value(kMaxContextEnvValueBytes, 'v');
  const Case cases[] = {
      {"", {}, {}},
      {"A=1\nB=two words\n", {"A=1", "B=two words"}, {}},
      {"A=1", {"A=1"}, {}},  // no newline at the end
      {"# a comment\n\n   # indented\n \t \nA=1\n", {"A=1"}, {}},
      {"  A=1\n", {"A=1"}, {}},
      {"export A=1\nexport\tB=2\nexportC=3\nexport=4\n",
       {"A=1", "B=2", "exportC=3", "export=4"},
       {}},
      {"A=1\r\nB=2\r\n", {"A=1", "B=2"}, {}},
      {"A=1\r\r\n", {"A=1\r"}, {}},  // only the one before '\n'
      // Values are literal: no quotes removed, nothing expanded.
      {"A='x y'\nB=\"$HOME\"\nC=a=b\nD=\nE= lead\n",
       {"A='x y'", "B=\"$HOME\"", "C=a=b", "D=", "E= lead"},
       {}},
      {"A=\xff\xfe caf\xc3\xa9\n", {"A=\xff\xfe caf\xc3\xa9"}, {}},  // any bytes
      {"_a9=1\nTQ=2\ntq_x=3\n", {"_a9=1", "TQ=2", "tq_x=3"}, {}},
      {"A=1\nB=2\nA=3\n", {"A=3", "B=2"}, {}},  // the last value, at the first place
      {"1X=1\n", {}, {"line 1: \"1X\" is not a variable name"}},
      {"A-B=1\nA B=1\n=1\n",
       {},
       {"line 1: \"A-B\" is not a variable name", "line 2: \"A B\" is not a variable name",
        "line 3: \"\" is not a variable name"}},
      {"A =1\n", {}, {"line 1: \"A \" is not a variable name"}},
      {"TQ_STAGE=x\nTQ_CONTEXT=/tmp\n",
       {},
       {"line 1: \"TQ_STAGE\" is tq's own", "line 2: \"TQ_CONTEXT\" is tq's own"}},
      {"# c\n\nhello\nexport A\n",
       {},
       {"line 3: no '=' (NAME=VALUE expected)", "line 4: no '=' (NAME=VALUE expected)"}},
      {longest_name + "=1\n", {longest_name + "=1"}, {}},
      {long_name + "=1\n", {}, {"line 1: a name of 129 bytes is longer than 128"}},
      {std::string(60000, 'N') + "=1\n", {}, {"line 1: a name of 60000 bytes is longer than 128"}},
      {"A=" + longest_value + "\n", {"A=" + longest_value}, {}},
      {"A=" + longest_value + "v\n",
       {},
       {"line 1: the value of \"A\" is 4097 bytes, over the limit of 4096"}},
      {std::string("A=x\0y\nB=1\n", 10), {"B=1"}, {"line 1: the value of \"A\" holds a NUL byte"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const ContextEnv env = ParseContextEnv(c.text);
    CHECK(env.entries == c.entries);
    CHECK(env.refused == c.refused);
  }
}

TEST_CASE("context env: a refusal never shows the value") {
  const char text[] = "1X=hunter2\nTQ_A=hunter2\nA=hunter2\0\n";
  const std::string long_value = "hunter2" + std::string(kMaxContextEnvValueBytes, 'x');
  const ContextEnv env = ParseContextEnv(std::string(text, sizeof text - 1) + "C=" + long_value);
  REQUIRE(env.refused.size() == 4);
  for (const std::string& why : env.refused) CHECK(why.find("hunter2") == std::string::npos);
}

TEST_CASE("context env: at most 256 names, and a known name may still change") {
  std::string text;
  for (size_t i = 0; i <= kMaxContextEnvEntries; ++i) text += "V" + std::to_string(i) + "=x\n";
  text += "V0=changed\n";
  const ContextEnv env = ParseContextEnv(text);
  REQUIRE(env.entries.size() == kMaxContextEnvEntries);
  CHECK(env.entries.front() == "V0=changed");
  CHECK(env.entries.back() == "V255=x");
  CHECK(env.refused == Lines{"line 257: \"V256\" is past the limit of 256 entries"});
}

TEST_CASE("context env: a file of junk gives a few messages and a count of the rest") {
  std::string text;
  for (size_t i = 0; i < kMaxContextEnvRefusals + 4; ++i) text += "junk\n";
  const ContextEnv env = ParseContextEnv(text);
  REQUIRE(env.refused.size() == kMaxContextEnvRefusals + 1);
  CHECK(env.refused.front() == "line 1: no '=' (NAME=VALUE expected)");
  CHECK(env.refused[kMaxContextEnvRefusals - 1] == "line 16: no '=' (NAME=VALUE expected)");
  CHECK(env.refused.back() == "and 4 more lines refused");
}

}  // namespace
}  // namespace tq
