// Handing out resource units: what is refused at submit, which units a start gets, what a
// waiting task waits for, and what the task is told.
#include "core/policy/unit_grant.h"

#include <doctest/doctest.h>

namespace tq {
namespace {

const UnitPools kPools = {{"gpu", {"0", "1", "2", "3"}}, {"licence", {"a", "b"}}};

TEST_CASE("a request tqd.toml cannot meet is refused naming the resource and what exists") {
  const struct {
    UnitRequest request;
    UnitPools pools;
    const char* message;  // "" when allowed
  } cases[] = {
      {{}, {}, ""},
      {{{"gpu", 4}, {"licence", 1}}, kPools, ""},
      {{{"gpu", 5}}, kPools, "use: gpu=5: only 4 units of gpu exist"},
      {{{"licence", 3}}, kPools, "use: licence=3: only 2 units of licence exist"},
      {{{"gpu", 2}}, {{"gpu", {"0"}}}, "use: gpu=2: only 1 unit of gpu exist"},
      {{{"gpu", 0}}, kPools, "use: gpu=0: ask for 1 or more units"},
      {{{"tpu", 1}},
       kPools,
       "use: \"tpu\" is not a resource of this daemon (tqd.toml's [resources] names gpu, "
       "licence)"},
      {{{"gpu", 1}}, {}, "use: \"gpu\" is not a resource of this daemon (tqd.toml names none"},
  };
  for (const auto& c : cases) {
    CAPTURE(EncodeUnitRequest(c.request));
    const Status s = CheckUnitRequest(c.request, c.pools);
    if (std::string(c.message).empty()) {
      CHECK(s.ok());
      continue;
    }
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == ErrorCode::kInvalid);
    CHECK(s.field() == "use");
    CHECK(s.message().find(c.message) == 0);
  }
}

TEST_CASE("a start gets the first free units in tqd.toml's order, or waits for them all") {
  const struct {
    const char* name;
    UnitRequest request;
    UnitsHeld held;
    std::optional<UnitGrant> grant;
    const char* short_of;
  } cases[] = {
      {"nothing asked", {}, {{"gpu", {"0", "1", "2", "3"}}}, UnitGrant{}, ""},
      {"all free", {{"gpu", 2}}, {}, UnitGrant{{"gpu", {"0", "1"}}}, ""},
      {"the gaps", {{"gpu", 2}}, {{"gpu", {"0", "2"}}}, UnitGrant{{"gpu", {"1", "3"}}}, ""},
      {"the last unit", {{"gpu", 1}}, {{"gpu", {"0", "1", "2"}}}, UnitGrant{{"gpu", {"3"}}}, ""},
      {"one short", {{"gpu", 2}}, {{"gpu", {"0", "1", "2"}}}, std::nullopt, "gpu"},
      {"all of one resource, none of another",
       {{"gpu", 1}, {"licence", 1}},
       {{"licence", {"a", "b"}}},
       std::nullopt,
       "licence"},
      {"two resources",
       {{"gpu", 1}, {"licence", 2}},
       {{"gpu", {"0"}}},
       UnitGrant{{"gpu", {"1"}}, {"licence", {"a", "b"}}},
       ""},
      {"a unit no longer configured is not handed out, nor counted",
       {{"gpu", 4}},
       {{"gpu", {"7"}}},
       UnitGrant{{"gpu", {"0", "1", "2", "3"}}},
       ""},
      {"a resource a reload removed", {{"fpga", 1}}, {}, std::nullopt, "fpga"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(GrantUnits(c.request, kPools, c.held) == c.grant);
    CHECK(ShortResource(c.request, kPools, c.held) == c.short_of);
  }
}

TEST_CASE("a task is told its units, and CUDA_VISIBLE_DEVICES for the resource named gpu") {
  using Env = std::vector<std::pair<std::string, std::string>>;
  CHECK(UnitEnvironment({}).empty());
  CHECK(UnitEnvironment({{"licence", {"a"}}}) == Env{{"TQ_RESOURCE_LICENCE", "a"}});
  CHECK(UnitEnvironment({{"gpu", {"1", "3"}}, {"fpga_x", {"u0"}}}) ==
        Env{{"TQ_RESOURCE_FPGA_X", "u0"},
            {"TQ_RESOURCE_GPU", "1,3"},
            {"CUDA_VISIBLE_DEVICES", "1,3"}});
}

}  // namespace
}  // namespace tq
