#include "core/store/sql/stored_bytes.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq::sql {
namespace {

TEST_CASE("byte-string lists round-trip through their BLOB form") {
  const struct {
    const char* name;
    std::vector<std::string> items;
    std::string blob;
  } kCases[] = {
      {"none", {}, ""},
      {"one empty", {""}, std::string("\0", 1)},
      {"empties kept", {"", "a", ""}, std::string("\0a\0\0", 4)},
      {"any byte but NUL", {"\xff\xfe", "new\nline"}, std::string("\xff\xfe\0new\nline\0", 12)},
  };
  for (const auto& c : kCases) {
    CAPTURE(c.name);
    CHECK(EncodeList(c.items) == c.blob);
    std::vector<std::string> back{"stale"};
    REQUIRE(DecodeList(c.blob, &back));
    CHECK(back == c.items);
  }
  std::vector<std::string> out;
  CHECK_FALSE(DecodeList("no terminator", &out));
  CHECK_FALSE(DecodeList(std::string("a\0b", 3), &out));
}

TEST_CASE("FirstWithNul finds the element EncodeList cannot carry") {
  CHECK_FALSE(FirstWithNul({"a", "", "b"}).has_value());
  CHECK(FirstWithNul({"a", std::string("b\0", 2), std::string("\0", 1)}) == 1u);
}

TEST_CASE("the env digest is FNV-1a 64, stable, and salted apart") {
  // Published FNV-1a 64 test vectors; envs rows in old databases are keyed by these.
  CHECK(Fnv1a64("") == 0xcbf29ce484222325ull);
  CHECK(Fnv1a64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(Fnv1a64("foobar") == 0x85944171f73967e8ull);
  CHECK(EnvKey("") == "cbf29ce484222325");
  CHECK(EnvKey("a").size() == 16);
  CHECK(EnvKey("a", 1) != EnvKey("a"));
  CHECK(EnvKey("a", 1) != EnvKey("a", 2));
}

}  // namespace
}  // namespace tq::sql
