#include "core/quote.h"

#include <doctest/doctest.h>

#include "core/protocol.h"

namespace tq {
namespace {

TEST_CASE("Quote escapes quotes, backslashes and control bytes") {
  CHECK(Quote("plain") == "\"plain\"");
  CHECK(Quote("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(Quote(std::string("\n\x7f\0", 3)) == "\"\\x0a\\x7f\\x00\"");
}

TEST_CASE("Quote cuts a long value at a character boundary and says how long it was") {
  const std::string exact(kMaxQuotedBytes, 'x');
  CHECK(Quote(exact) == "\"" + exact + "\"");
  const std::string longer = exact + "y";
  CHECK(Quote(longer) == "\"" + exact + "\"... (257 bytes)");
  // A two-byte character straddling the cut is left out whole, never split.
  const std::string straddle = std::string(kMaxQuotedBytes - 1, 'x') + "\xc3\xa9" + "zz";
  CHECK(Quote(straddle) == "\"" + std::string(kMaxQuotedBytes - 1, 'x') + "\"... (259 bytes)");
}

TEST_CASE("a refusal stays small however large the value it names") {
  const std::string type(1 << 20, 't');
  auto r = DecodeRequest("{\"proto\": 1, \"type\": \"" + type + "\"}");
  REQUIRE(!r.ok());
  CHECK(r.status().field() == "type");
  CHECK(r.status().message().size() < 1024);
  const std::string queue(1 << 20, 'q');
  auto s = DecodeRequest(
      "{\"proto\": 1, \"type\": \"submit\", \"argv\": [\"true\"], \"queue\": \"" + queue + "\"}");
  REQUIRE(!s.ok());
  CHECK(s.status().field() == "queue");
  CHECK(s.status().message().size() < 1024);
}

}  // namespace
}  // namespace tq
