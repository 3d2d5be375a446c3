#include "core/model/quote.h"

#include <doctest/doctest.h>

#include "core/model/bytes.h"
#include "core/proto/protocol.h"

namespace tq {
namespace {

TEST_CASE("Quote escapes quotes, control bytes and bytes that are not UTF-8") {
  CHECK(Quote("plain") == "\"plain\"");
  CHECK(Quote("say \"hi\"\\") == "\"say \\\"hi\\\"\\\\\"");
  CHECK(Quote("a\nb\x7f") == "\"a\\x0ab\\x7f\"");
  CHECK(Quote("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82") ==
        "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82\"");
  CHECK(Quote("a\xff") == "\"a\\xff\"");
  CHECK(Quote("\xc3") == "\"\\xc3\"");                    // a sequence cut short at the end
  CHECK(Quote("\xc3(") == "\"\\xc3(\"");                  // a lead byte without its continuation
  CHECK(Quote("\xed\xa0\x80") == "\"\\xed\\xa0\\x80\"");  // a surrogate
  CHECK(Quote("\xc0\xaf") == "\"\\xc0\\xaf\"");           // an overlong
  for (const char* s : {"\xff\xfe", "\xe2\x82", "x\xf4\x90\x80\x80"}) CHECK(IsValidUtf8(Quote(s)));
}

TEST_CASE("QuoteEach quotes each value and joins them with commas") {
  CHECK(QuoteEach({}) == "");
  CHECK(QuoteEach({"web-1"}) == "\"web-1\"");
  CHECK(QuoteEach({"a", "b\"", "c\xff"}) == "\"a\", \"b\\\"\", \"c\\xff\"");
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
