// PlaceTask and TakesUnplaced (SPEC 12): where a submitted task may run, against a table of
// queues, hosts and requests.
#include "core/model/placement.h"

#include <doctest/doctest.h>

#include <string>

namespace tq {
namespace {

// One submit on host "a": the queue's hosts, the --host asked for, whether the store is shared,
// and the placement expected ("!" for a refusal naming the field "host").
struct PlaceCase {
  QueueHosts hosts;
  std::string requested;
  bool shared;
  std::string expected;
};

TEST_CASE("PlaceTask places a task by its queue's hosts and --host") {
  const QueueHosts own;
  const QueueHosts any{true, {}};
  const QueueHosts bc{false, {"b", "c"}};
  const PlaceCase cases[] = {
      // One host's store: nothing is placed, and --host may name only this host.
      {own, "", false, ""},
      {any, "", false, ""},
      {bc, "", false, ""},
      {own, "a", false, ""},
      {own, "b", false, "!"},
      // A shared store: a queue without hosts keeps its tasks on the submitting host.
      {own, "", true, "a"},
      {own, "a", true, "a"},
      {own, "b", true, "!"},
      // hosts = "any": anywhere, or where asked.
      {any, "", true, ""},
      {any, "b", true, "b"},
      // hosts = ["b", "c"]: on one of them, placed on none unless asked.
      {bc, "", true, ""},
      {bc, "c", true, "c"},
      {bc, "a", true, "!"},
      // A name that is no host name.
      {any, "-x", true, "!"},
      {any, "a b", true, "!"},
  };
  for (const PlaceCase& c : cases) {
    CAPTURE(c.requested);
    CAPTURE(c.shared);
    CAPTURE(c.hosts.any);
    Result<std::string> placed = PlaceTask(c.hosts, "q", "a", c.requested, c.shared);
    if (c.expected == "!") {
      REQUIRE_FALSE(placed.ok());
      CHECK(placed.status().field() == "host");
      CHECK(placed.status().message().find(c.requested) != std::string::npos);
    } else {
      REQUIRE_MESSAGE(placed.ok(), placed.status().message());
      CHECK(*placed == c.expected);
    }
  }
}

TEST_CASE("a refused --host names what the queue allows") {
  Result<std::string> own = PlaceTask(QueueHosts(), "q", "a", "b", true);
  REQUIRE_FALSE(own.ok());
  CHECK(own.status().message().find("submitted on, \"a\"") != std::string::npos);
  Result<std::string> listed = PlaceTask(QueueHosts{false, {"b", "c"}}, "q", "a", "d", true);
  REQUIRE_FALSE(listed.ok());
  CHECK(listed.status().message().find("\"b\", \"c\"") != std::string::npos);
}

TEST_CASE("TakesUnplaced: a queue that names hosts keeps its unplaced tasks to them") {
  CHECK(TakesUnplaced(QueueHosts(), "a"));
  CHECK(TakesUnplaced(QueueHosts{true, {}}, "a"));
  CHECK(TakesUnplaced(QueueHosts{false, {"a", "b"}}, "a"));
  CHECK_FALSE(TakesUnplaced(QueueHosts{false, {"b", "c"}}, "a"));
}

}  // namespace
}  // namespace tq
