// Waiters: a task whose end cannot be read answers its waiters with an error, never silence;
// what is awaited is listed for a shared store's poll.
#include "daemon/serve/waiters.h"

#include <doctest/doctest.h>

#include <vector>

namespace tq {
namespace {

struct Sent {
  ConnId conn;
  nlohmann::json frame;
  bool last;
};

Task Pending(TaskId id) {
  Task t;
  t.id = id;
  t.state = TaskState::kPending;
  return t;
}

TEST_CASE("Fail answers every waiter of the task with the error and forgets them") {
  std::vector<Sent> sent;
  Waiters waiters([&](ConnId conn, const nlohmann::json& frame, bool last) {
    sent.push_back({conn, frame, last});
  });
  waiters.Add(1, Waiters::Kind::kCollect, {Pending(7)});
  waiters.Add(2, Waiters::Kind::kStream, {Pending(7), Pending(8)});
  waiters.Add(3, Waiters::Kind::kStream, {Pending(8)});

  waiters.Fail(7, Status::Internal("store: get task failed: disk I/O error"));
  REQUIRE(sent.size() == 2);
  for (const Sent& s : sent) {
    CHECK((s.conn == 1 || s.conn == 2));
    CHECK(s.last);
    CHECK(s.frame["ok"] == false);
    CHECK(s.frame["error"]["message"] == "store: get task failed: disk I/O error");
  }

  // Connection 2 is done; task 8 still reaches connection 3 alone.
  Task ended = Pending(8);
  ended.state = TaskState::kSucceeded;
  waiters.OnTerminal(ended);
  REQUIRE(sent.size() == 4);
  CHECK(sent[2].conn == 3);
  CHECK(sent[3].conn == 3);
  CHECK(sent[3].last);
}

TEST_CASE("Awaited lists each waited task once, and forgets those answered or dropped") {
  Waiters waiters([](ConnId, const nlohmann::json&, bool) {});
  CHECK(waiters.Awaited().empty());
  waiters.Add(1, Waiters::Kind::kCollect, {Pending(9), Pending(7)});
  waiters.Add(2, Waiters::Kind::kStream, {Pending(7), Pending(8)});
  CHECK(waiters.Awaited() == std::vector<TaskId>{7, 8, 9});
  Task ended = Pending(7);
  ended.state = TaskState::kSucceeded;
  waiters.OnTerminal(ended);
  CHECK(waiters.Awaited() == std::vector<TaskId>{8, 9});
  waiters.Drop(2);
  CHECK(waiters.Awaited() == std::vector<TaskId>{9});
}

}  // namespace
}  // namespace tq
