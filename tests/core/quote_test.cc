#include "core/quote.h"

#include <doctest/doctest.h>

#include "core/bytes.h"

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

}  // namespace
}  // namespace tq
