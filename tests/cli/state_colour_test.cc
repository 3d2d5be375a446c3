#include "cli/state_colour.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("colour only on a terminal, never with a non-empty NO_COLOR, never with --json") {
  struct Case {
    bool terminal;
    const char* no_color;
    bool json;
    bool want;
  };
  const Case cases[] = {
      {true, nullptr, false, true}, {true, "", false, true},    // empty: as if unset
      {true, "1", false, false},    {true, "0", false, false},  // any value turns it off
      {true, "no", false, false},   {false, nullptr, false, false},
      {true, nullptr, true, false}, {false, "1", true, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.terminal);
    CAPTURE(c.no_color ? c.no_color : "(unset)");
    CAPTURE(c.json);
    CHECK(ColourWanted(c.terminal, c.no_color, c.json) == c.want);
  }
}

TEST_CASE("each state has its colour, and a cell is painted by the state it starts with") {
  struct Case {
    std::string text;
    std::string want;
  };
  const Case cases[] = {
      {"pending", "\033[33mpending\033[0m"},
      {"running", "\033[36mrunning\033[0m"},
      {"succeeded", "\033[32msucceeded\033[0m"},
      {"failed", "\033[31mfailed\033[0m"},
      {"failed (exit 3)", "\033[31mfailed (exit 3)\033[0m"},
      {"cancelled", "\033[2mcancelled\033[0m"},
      {"expired", "\033[2mexpired\033[0m"},
      {"STATE", "STATE"},  // a header stays plain
      {"-", "-"},
      {"", ""},
      {"failedx", "failedx"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(PaintState(c.text, true) == c.want);
    CHECK(PaintState(c.text, false) == c.text);
  }
}

TEST_CASE("colour codes take no room on a terminal") {
  struct Case {
    std::string text;
    std::string plain;
  };
  const Case cases[] = {
      {"", ""},
      {"plain", "plain"},
      {"\033[31mfailed\033[0m", "failed"},
      {"\033[1;32mok\033[0m and \033[2mdim\033[0m", "ok and dim"},
      {"\033[", "\033["},        // not a whole sequence: kept
      {"\033[12", "\033[12"},    // no final byte
      {"\033[1Kx", "\033[1Kx"},  // not SGR
      {"a\033b", "a\033b"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(StripSgr(c.text) == c.plain);
    CHECK(VisibleWidth(c.text) == c.plain.size());
  }
}

}  // namespace
}  // namespace tq
