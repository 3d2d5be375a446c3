// The task selector of the verbs that act on many tasks (SPEC 10), in the clean, wait, cancel
// and retry requests: round trips, and every malformed body refused naming its field.
#include <doctest/doctest.h>

#include "core/proto/protocol.h"

namespace tq {
namespace {

TEST_CASE("a clean request round-trips with ids or with filters") {
  CleanRequest by_ids;
  by_ids.select.ids = {3, 7};
  by_ids.older_than_ms = 60000;
  auto ids = DecodeRequest(EncodeRequest(by_ids));
  REQUIRE(ids.ok());
  const auto& a = std::get<CleanRequest>(*ids);
  CHECK(a.select.ids == std::vector<TaskId>{3, 7});
  CHECK(a.select.ByFilter() == false);
  CHECK(a.older_than_ms == 60000);

  CleanRequest by_filter;
  by_filter.select.states = {TaskState::kFailed, TaskState::kCancelled};
  by_filter.select.queue = "gpu";
  by_filter.select.label = "nightly";
  by_filter.select.user = "alice";
  auto filters = DecodeRequest(EncodeRequest(by_filter));
  REQUIRE(filters.ok());
  const auto& b = std::get<CleanRequest>(*filters);
  CHECK(b.select.ByFilter());
  CHECK(b.select.states == by_filter.select.states);
  CHECK(b.select.queue == std::optional<std::string>("gpu"));
  CHECK(b.select.label == std::optional<std::string>("nightly"));
  CHECK(b.select.user == std::optional<std::string>("alice"));
  CHECK(b.older_than_ms == 0);

  auto bare = DecodeRequest(R"({"proto":1,"type":"clean"})");
  REQUIRE(bare.ok());
  CHECK(std::get<CleanRequest>(*bare).select.states.empty());  // the daemon's default
}

TEST_CASE("a malformed clean request is refused naming its field") {
  struct Case {
    std::string body, field, in_message;
  };
  const std::vector<Case> cases = {
      {R"("ids":"3")", "ids", "an array of task ids"},
      {R"("ids":[3],"queue":"q")", "ids", "not both"},
      {R"("ids":[3],"states":["failed"])", "ids", "not both"},
      {R"("states":["running"])", "states", "\"running\" is not one"},
      {R"("states":["pending"])", "states", "succeeded failed cancelled expired"},
      {R"("states":["bogus"])", "states", "\"bogus\""},
      {R"("states":"failed")", "states", "an array of state names"},
      {R"("user":"a b")", "user", "\"a b\" is not a user name"},
      {R"("queue":5)", "queue", "a queue name"},
      {R"("older_than_ms":-1)", "older_than_ms", "must be >= 0"},
      {R"("older_than_ms":1.5)", "older_than_ms", "milliseconds"},
  };
  for (const Case& c : cases) {
    const std::string payload = R"({"proto":1,"type":"clean",)" + c.body + "}";
    CAPTURE(payload);
    auto r = DecodeRequest(payload);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == ErrorCode::kInvalid);
    CHECK(r.status().field() == c.field);
    CHECK_MESSAGE(r.status().message().find(c.in_message) != std::string::npos,
                  r.status().message());
  }
}

TEST_CASE("wait and cancel take ids or filters, but not nothing") {
  WaitRequest wait;
  wait.select.label = "batch-7";
  auto w = DecodeRequest(EncodeRequest(wait));
  REQUIRE(w.ok());
  CHECK(std::get<WaitRequest>(*w).select.label == "batch-7");
  CancelRequest cancel;
  cancel.select.states = {TaskState::kPending};
  cancel.select.queue = "slow";
  auto c = DecodeRequest(EncodeRequest(cancel));
  REQUIRE(c.ok());
  CHECK(std::get<CancelRequest>(*c).select.states == cancel.select.states);

  for (const char* body : {R"({"proto":1,"type":"wait"})", R"({"proto":1,"type":"wait","ids":[]})",
                           R"({"proto":1,"type":"cancel","ids":[]})"}) {
    CAPTURE(body);
    auto r = DecodeRequest(body);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().field() == "ids");
    CHECK(r.status().message().find("or a filter") != std::string::npos);
  }
  auto finished = DecodeRequest(R"({"proto":1,"type":"cancel","states":["failed"]})");
  REQUIRE_FALSE(finished.ok());
  CHECK(finished.status().message() ==
        "states: cancel acts on tasks that are pending running; \"failed\" is not one");
  CHECK(DecodeRequest(R"({"proto":1,"type":"wait","states":["expired"]})").ok());
}

}  // namespace
}  // namespace tq
