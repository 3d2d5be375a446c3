#include "core/model/bytes.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("IsValidUtf8 over a table of byte strings") {
  struct Case {
    std::string bytes;
    bool valid;
  };
  const Case cases[] = {
      {"", true},
      {"plain ascii", true},
      {"caf\xc3\xa9", true},
      {"\xe2\x82\xac", true},      // euro sign
      {"\xf0\x9f\x98\x80", true},  // emoji
      {"\xff", false},
      {"\xc3", false},              // truncated
      {"\xc0\xaf", false},          // overlong '/'
      {"\xed\xa0\x80", false},      // surrogate
      {"\xf4\x90\x80\x80", false},  // above U+10FFFF
      {"ok\x80", false},            // lone continuation
      {"Latin-1 \xe9t\xe9", false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.bytes);
    CHECK(IsValidUtf8(c.bytes) == c.valid);
  }
}

TEST_CASE("base64 round trips every length and rejects garbage") {
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  for (size_t n = 0; n <= all.size(); ++n) {
    const std::string s = all.substr(0, n);
    auto back = Base64Decode(Base64Encode(s));
    REQUIRE(back);
    CHECK(*back == s);
  }
  CHECK(Base64Encode("foobar") == "Zm9vYmFy");
  CHECK(Base64Encode("fo") == "Zm8=");
  for (const char* bad : {"Zm9", "Zm9v!mFy", "Z===", "=Zm8", "Zm=v"}) {
    CAPTURE(bad);
    CHECK_FALSE(Base64Decode(bad));
  }
}

}  // namespace
}  // namespace tq
