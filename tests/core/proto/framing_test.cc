#include "core/proto/framing.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace tq {
namespace {

TEST_CASE("frames split and join across arbitrary reads") {
  const std::string a = "{\"proto\":1}", b = "", c(70000, 'x');
  const std::string stream = EncodeFrame(a) + EncodeFrame(b) + EncodeFrame(c);
  for (size_t chunk : {1u, 3u, 4u, 5u, 4096u, 1u << 20}) {
    CAPTURE(chunk);
    FrameDecoder d;
    std::vector<std::string> got;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      d.Feed(std::string_view(stream).substr(i, chunk));
      for (;;) {
        auto f = d.Next();
        REQUIRE(f.ok());
        if (!f->has_value()) break;
        got.push_back(**f);
      }
    }
    CHECK(got == std::vector<std::string>{a, b, c});
    CHECK(d.buffered() == 0);
  }
}

TEST_CASE("a truncated frame waits for the rest") {
  FrameDecoder d;
  const std::string f = EncodeFrame("hello");
  d.Feed(f.substr(0, 6));
  auto r = d.Next();
  REQUIRE(r.ok());
  CHECK_FALSE(r->has_value());
  CHECK(d.buffered() == 6);
}

TEST_CASE("an oversized length is refused with the limit named") {
  FrameDecoder d(1024);
  d.Feed(std::string("\xff\xff\xff\xff", 4));
  auto r = d.Next();
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == ErrorCode::kLimit);
  CHECK(r.status().message().find("1024") != std::string::npos);
  FrameDecoder ok(1024);
  ok.Feed(EncodeFrame(std::string(1024, 'a')));
  CHECK(ok.Next().ok());
}

TEST_CASE("the length prefix is big-endian") {
  const std::string f = EncodeFrame(std::string(258, 'z'));
  CHECK(f.substr(0, 4) == std::string("\x00\x00\x01\x02", 4));
}

}  // namespace
}  // namespace tq

namespace tq {
namespace {

TEST_CASE("HasFrame says whether Next would return a frame or an error") {
  FrameDecoder d(100);
  CHECK_FALSE(d.HasFrame());
  const std::string f = EncodeFrame("abc");
  d.Feed(f.substr(0, 5));
  CHECK_FALSE(d.HasFrame());
  d.Feed(f.substr(5));
  CHECK(d.HasFrame());
  REQUIRE(d.Next().ok());
  CHECK_FALSE(d.HasFrame());
  d.Feed(std::string("\x00\x00\x01\x00", 4));  // 256 > 100: the error is ready at once
  CHECK(d.HasFrame());
  CHECK_FALSE(d.Next().ok());
}

}  // namespace
}  // namespace tq
