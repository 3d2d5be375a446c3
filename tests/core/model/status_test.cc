#include "core/model/status.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq {
namespace {

TEST_CASE("MessageLines splits a message of several errors into one per line") {
  using Lines = std::vector<std::string>;
  const struct {
    std::string message;
    Lines lines;
  } cases[] = {
      {"one error", {"one error"}},
      {"", {""}},
      {"a: first\nb: second", {"a: first", "b: second"}},
      {"a\n\nb", {"a", "", "b"}},
      {"ends with a newline\n", {"ends with a newline", ""}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.message);
    CHECK(MessageLines(c.message) == c.lines);
  }
}

}  // namespace
}  // namespace tq
