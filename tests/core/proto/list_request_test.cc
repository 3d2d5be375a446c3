// The list request's states: one travels as "state" (what every tqd reads), several as "states";
// both fields are read (an older tq sends "state"), each state kept once, an unknown name refused.
#include <doctest/doctest.h>

#include "core/proto/requests/list.h"

namespace tq {
namespace {

using nlohmann::json;
using S = TaskState;

TEST_CASE("a list request sends one state as state and several as states") {
  ListRequest one;
  one.states = {S::kFailed};
  const json single = EncodeList(one);
  CHECK(single["state"] == "failed");
  CHECK_FALSE(single.contains("states"));

  ListRequest several;
  several.states = {S::kFailed, S::kCancelled};
  const json many = EncodeList(several);
  CHECK(many["states"] == json::array({"failed", "cancelled"}));
  CHECK_FALSE(many.contains("state"));
  auto back = DecodeList(many);
  REQUIRE(back.ok());
  CHECK(back->states == several.states);

  CHECK_FALSE(EncodeList(ListRequest{}).contains("state"));
  CHECK_FALSE(EncodeList(ListRequest{}).contains("states"));
  REQUIRE(DecodeList(json::object()).ok());
  CHECK(DecodeList(json::object())->states.empty());
}

TEST_CASE("a list request reads state and states together, each state once") {
  auto old = DecodeList({{"state", "running"}});  // from an older tq
  REQUIRE(old.ok());
  CHECK(old->states == std::vector<TaskState>{S::kRunning});
  auto both = DecodeList(
      {{"state", "succeeded"}, {"states", json::array({"pending", "succeeded", "pending"})}});
  REQUIRE(both.ok());
  CHECK(both->states == std::vector<TaskState>{S::kSucceeded, S::kPending});
}

TEST_CASE("a list request refuses a name that is no state, naming the field") {
  auto bad = DecodeList({{"states", json::array({"failed", "done"})}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().field() == "states");
  CHECK(bad.status().message() ==
        "states: \"done\" is not one of pending running succeeded failed cancelled expired");
  auto old = DecodeList({{"state", "done"}});
  REQUIRE_FALSE(old.ok());
  CHECK(old.status().message() ==
        "state: \"done\" is not one of pending running succeeded failed cancelled expired");
  auto not_array = DecodeList({{"states", "failed"}});
  REQUIRE_FALSE(not_array.ok());
  CHECK(not_array.status().field() == "states");
}

}  // namespace
}  // namespace tq
