// --listen of tq web: what it accepts, what it refuses and says why, and which addresses count
// as this machine only.
#include "cli/web/listen_address.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("--listen values: accepted as written, refused naming the value and the forms") {
  struct Case {
    const char* text;
    const char* parsed;  // Text() of the result, or nullptr for a refusal
    bool local;
  };
  const Case cases[] = {
      {"127.0.0.1:8377", "127.0.0.1:8377", true},
      {"localhost:9000", "127.0.0.1:9000", true},
      {"127.0.0.2:0", "127.0.0.2:0", true},
      {"0.0.0.0:80", "0.0.0.0:80", false},
      {"192.168.1.5:8377", "192.168.1.5:8377", false},
      {"[::1]:8377", "[::1]:8377", true},
      {"[::]:8377", "[::]:8377", false},
      {"unix:/run/tq-web.sock", "unix:/run/tq-web.sock", true},
      {"unix:relative.sock", nullptr, false},
      {"unix:", nullptr, false},
      {"8377", nullptr, false},
      {"127.0.0.1", nullptr, false},
      {"127.0.0.1:", nullptr, false},
      {"127.0.0.1:65536", nullptr, false},
      {"127.0.0.1:-1", nullptr, false},
      {"127.0.0.1:80x", nullptr, false},
      {"example.com:80", nullptr, false},
      {"::1:8377", nullptr, false},
      {"[::1:8377", nullptr, false},
      {"[nonsense]:80", nullptr, false},
      {":8377", nullptr, false},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    Result<ListenAddress> a = ParseListenAddress(c.text);
    if (c.parsed == nullptr) {
      REQUIRE_FALSE(a.ok());
      CHECK(a.status().field() == "--listen");
      CHECK(a.status().message().find(std::string("\"") + c.text + "\"") != std::string::npos);
      CHECK(a.status().message().find("unix:/absolute/path") != std::string::npos);
      continue;
    }
    REQUIRE(a.ok());
    CHECK(a->Text() == c.parsed);
    CHECK(a->Local() == c.local);
  }
  CHECK(ParseListenAddress("unix:/" + std::string(200, 'x')).status().message().find("at most") !=
        std::string::npos);
  CHECK(DefaultListenAddress().Text() == "127.0.0.1:8377");
}

}  // namespace
}  // namespace tq
