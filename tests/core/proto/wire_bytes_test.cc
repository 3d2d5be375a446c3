#include "core/proto/wire_bytes.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

TEST_CASE("bytes travel as strings when UTF-8, else as b64") {
  CHECK(BytesToJson("hello") == nlohmann::json("hello"));
  const std::string latin1 = "r\xe9sum\xe9.txt";
  const nlohmann::json j = BytesToJson(latin1);
  REQUIRE(j.is_object());
  CHECK(j.contains("b64"));
  auto back = BytesFromJson(nlohmann::json::parse(j.dump()), "argv");
  REQUIRE(back.ok());
  CHECK(*back == latin1);
}

TEST_CASE("BytesFromJson refuses other shapes, naming the field") {
  for (const char* text :
       {"12", "null", "[]", "{\"b64\": 5}", "{\"b64\": \"!!\"}", "{\"b64\": \"aGk=\", \"x\": 1}"}) {
    CAPTURE(text);
    auto r = BytesFromJson(nlohmann::json::parse(text), "cwd");
    CHECK_FALSE(r.ok());
    CHECK(r.status().field() == "cwd");
  }
}

}  // namespace
}  // namespace tq
