// The events of `tq events -f`: one JSON object per state change, sent only to the subscribers
// who may see the task, built only when someone is subscribed.
#include "daemon/serve/event_feed.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "core/proto/protocol.h"
#include "core/store/sqlite/open.h"
#include "support/fake_clock.h"

namespace tq {
namespace {

using nlohmann::json;

// A feed over an in-memory store where uid 0 sees everything and others their own tasks,
// recording each frame sent.
struct FeedFixture {
  FakeClock clock{1'800'000'000'123};
  std::unique_ptr<Store> store;
  std::unique_ptr<EventFeed> feed;
  std::vector<std::pair<ConnId, json>> sent;

  FeedFixture() {
    auto s = OpenSqliteStore(":memory:", /*durability_full=*/false);
    REQUIRE_MESSAGE(s.ok(), s.status().message());
    store = std::move(*s);
    feed = std::make_unique<EventFeed>(
        *store, clock,
        [this](ConnId conn, std::string_view text) { sent.emplace_back(conn, json::parse(text)); },
        [](const Owner& peer, uint32_t owner_uid) {
          return peer.uid == 0 || peer.uid == owner_uid;
        });
  }
};

TaskSpec LabelledSpec() {
  TaskSpec spec;
  spec.argv = {"true"};
  spec.queue = "batch";
  spec.labels = {"nightly", "job:backup"};
  spec.job = "backup";
  return spec;
}

TEST_CASE("an event carries the time, state, reason, attempt, exit and the task's labels") {
  const TaskSpec spec = LabelledSpec();
  Task task;
  task.id = 42;
  task.owner = {1000, 1000, "alice"};
  task.spec = spec;
  task.state = TaskState::kFailed;
  task.reason = TaskReason::kExit;
  task.attempt_count = 3;
  task.exit_code = 2;
  const json e = EventJson(ChangeOf(task), 1'800'000'000'123);
  CHECK(e == json{{"time", "2027-01-15T08:00:00.123Z"},
                  {"id", 42},
                  {"state", "failed"},
                  {"reason", "exit"},
                  {"attempt", 3},
                  {"exit_code", 2},
                  {"queue", "batch"},
                  {"job", "backup"},
                  {"labels", {"nightly", "job:backup"}}});

  // Not terminal: no exit (that of an earlier attempt is no news); no job: no "job".
  task.state = TaskState::kPending;
  task.spec.job.reset();
  task.signal = 9;
  const json p = EventJson(ChangeOf(task, "requeued"), 0);
  CHECK(p["reason"] == "requeued");
  CHECK_FALSE(p.contains("exit_code"));
  CHECK_FALSE(p.contains("signal"));
  CHECK_FALSE(p.contains("job"));
}

TEST_CASE("each change goes to the subscribers who may see the task, once each") {
  FeedFixture f;
  f.feed->Add(1, Owner{1000, 1000, "alice"});
  f.feed->Add(2, Owner{1001, 1001, "bob"});
  f.feed->Add(3, Owner{0, 0, "root"});
  const TaskSpec spec = LabelledSpec();
  f.feed->Created(7, Owner{1000, 1000, "alice"}, spec);
  REQUIRE(f.sent.size() == 2);
  std::vector<ConnId> to;
  for (const auto& [conn, frame] : f.sent) {
    to.push_back(conn);
    CHECK(frame["ok"] == true);
    CHECK(frame["event"]["id"] == 7);
    CHECK(frame["event"]["state"] == "pending");
    CHECK(frame["event"]["reason"] == "submitted");
    CHECK(frame["event"]["attempt"] == 0);
  }
  std::sort(to.begin(), to.end());
  CHECK(to == std::vector<ConnId>{1, 3});

  // Dropped on close: nothing more reaches it.
  f.feed->Drop(1);
  f.sent.clear();
  f.feed->Created(8, Owner{1000, 1000, "alice"}, spec);
  REQUIRE(f.sent.size() == 1);
  CHECK(f.sent[0].first == 3);
}

TEST_CASE("start, retry and end make running, pending(retry) and the terminal state") {
  FeedFixture f;
  f.feed->Add(5, Owner{0, 0, "root"});
  Task task;
  task.id = 9;
  task.spec = LabelledSpec();
  f.feed->Started(task, 1);
  AttemptOutcome outcome;
  outcome.exit_code = 3;
  f.feed->Retrying(task, 1, outcome);
  task.state = TaskState::kSucceeded;
  task.reason = TaskReason::kExit;
  task.attempt_count = 2;
  task.exit_code = 0;
  f.feed->Ended(task);
  REQUIRE(f.sent.size() == 3);
  CHECK(f.sent[0].second["event"]["state"] == "running");
  CHECK(f.sent[0].second["event"]["reason"] == "started");
  CHECK(f.sent[0].second["event"]["attempt"] == 1);
  CHECK(f.sent[1].second["event"]["state"] == "pending");
  CHECK(f.sent[1].second["event"]["reason"] == "retry");
  CHECK(f.sent[1].second["event"]["attempt"] == 1);
  CHECK(f.sent[1].second["event"]["exit_code"] == 3);
  CHECK(f.sent[2].second["event"]["state"] == "succeeded");
  CHECK(f.sent[2].second["event"]["attempt"] == 2);
  CHECK(f.sent[2].second["event"]["exit_code"] == 0);
}

TEST_CASE("Reread publishes a stored task as it is now") {
  FeedFixture f;
  f.feed->Add(1, Owner{1000, 1000, "alice"});
  auto id = f.store->Insert(Owner{1000, 1000, "alice"}, LabelledSpec(), f.clock.WallNow());
  REQUIRE(id.ok());
  f.feed->Reread({*id, 999999}, "requeued");  // a task that cannot be read is skipped
  REQUIRE(f.sent.size() == 1);
  CHECK(f.sent[0].second["event"]["id"] == *id);
  CHECK(f.sent[0].second["event"]["state"] == "pending");
  CHECK(f.sent[0].second["event"]["reason"] == "requeued");
}

TEST_CASE("a subscriber closed while an event is sent does not disturb the others") {
  FeedFixture f;
  int calls = 0;
  f.feed = std::make_unique<EventFeed>(
      *f.store, f.clock,
      [&](ConnId conn, std::string_view) {
        ++calls;
        f.feed->Drop(conn);  // as Server::SendText closing a client that does not read
      },
      [](const Owner&, uint32_t) { return true; });
  for (ConnId c = 1; c <= 4; ++c) f.feed->Add(c, Owner{0, 0, "root"});
  f.feed->Created(1, Owner{}, LabelledSpec());
  CHECK(calls == 4);
  CHECK(f.feed->Count() == 0);
}

TEST_CASE("the events request round-trips and checks its field") {
  auto back = DecodeRequest(EncodeRequest(EventsRequest{true}));
  REQUIRE(back.ok());
  CHECK(std::get<EventsRequest>(*back).follow);
  CHECK(std::string(RequestType(*back)) == "events");
  auto bad = DecodeEvents(json{{"follow", 1}});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().field() == "follow");
}

}  // namespace
}  // namespace tq
