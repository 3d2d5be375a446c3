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

TEST_CASE("a frame put back comes again first, before the rest read after it") {
  FrameDecoder d;
  d.Feed(EncodeFrame("first") + EncodeFrame("second") + EncodeFrame("third").substr(0, 7));
  auto first = d.Next();
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  d.PutBack(**first);
  CHECK(d.buffered() == 4 + 5 + 4 + 6 + 7);
  std::vector<std::string> got;
  d.Feed(EncodeFrame("third").substr(7));  // the rest of the third
  for (auto f = d.Next(); f.ok() && f->has_value(); f = d.Next()) got.push_back(**f);
  CHECK(got == std::vector<std::string>{"first", "second", "third"});
  CHECK(d.buffered() == 0);
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

namespace tq {
namespace {

TEST_CASE("frame_bytes is the first frame's size once its length came") {
  struct Case {
    const char* what;
    std::string fed;
    size_t frame_bytes;
  };
  const std::string two = EncodeFrame("abc") + EncodeFrame("hello");
  const Case cases[] = {
      {"nothing", "", 0},
      {"part of the length", two.substr(0, 3), 0},
      {"the length", two.substr(0, 4), 7},
      {"part of the frame", two.substr(0, 6), 7},
      {"the frame and the next", two, 7},
      {"over the maximum", std::string("\x00\x00\x01\x00", 4), 0},
      {"the maximum", std::string("\x00\x00\x00\x64", 4), 104},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    FrameDecoder d(100);
    d.Feed(c.fed);
    CHECK(d.frame_bytes() == c.frame_bytes);
  }
}

TEST_CASE("a large frame read in small pieces arrives whole, and then the next") {
  const std::string big(3u << 20, 'b');
  const std::string stream = EncodeFrame(big) + EncodeFrame("next");
  FrameDecoder d;
  for (size_t i = 0; i < stream.size(); i += 65536) {
    d.Feed(std::string_view(stream).substr(i, 65536));
    if (d.buffered() < 4 + big.size()) CHECK(d.frame_bytes() == 4 + big.size());
  }
  auto first = d.Next();
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK(**first == big);
  CHECK(d.frame_bytes() == 8);
  auto second = d.Next();
  REQUIRE(second.ok());
  REQUIRE(second->has_value());
  CHECK(**second == "next");
  CHECK(d.buffered() == 0);
}

}  // namespace
}  // namespace tq
