// The store's side of tq list's pages and WHEN column, and of tq queue delete.
#include <doctest/doctest.h>

#include "core/store/conformance.h"
#include "core/store/test_util.h"

namespace tq {
namespace {

using namespace tq::test;

std::vector<TaskId> QueueIds(const std::vector<Task>& tasks) {
  std::vector<TaskId> ids;
  for (const Task& t : tasks) ids.push_back(t.id);
  return ids;
}

STORE_TEST_CASE("List pages with before_id, newest first") {
  auto store = OpenStore();
  std::vector<TaskId> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(MustInsert(*store, kAlice, Spec({"x"})));
  ListFilter filter;
  filter.limit = 2;
  auto first = store->List(filter);
  REQUIRE(first.ok());
  CHECK(QueueIds(*first) == std::vector<TaskId>{ids[4], ids[3]});
  filter.before_id = ids[3];
  auto second = store->List(filter);
  REQUIRE(second.ok());
  CHECK(QueueIds(*second) == std::vector<TaskId>{ids[2], ids[1]});
  filter.before_id = ids[1];
  filter.owner_uid = kAlice.uid;
  filter.queue = "default";
  auto last = store->List(filter);
  REQUIRE(last.ok());
  CHECK(QueueIds(*last) == std::vector<TaskId>{ids[0]});
}

STORE_TEST_CASE("UnfinishedDeps names the dependencies a task still waits for") {
  auto store = OpenStore();
  const TaskId a = MustInsert(*store, kAlice, Spec({"a"}));
  const TaskId b = MustInsert(*store, kAlice, Spec({"b"}));
  TaskSpec spec = Spec({"c"});
  spec.after = {b, a};
  const TaskId c = MustInsert(*store, kAlice, spec);
  auto deps = store->UnfinishedDeps(c);
  REQUIRE(deps.ok());
  CHECK(*deps == std::vector<TaskId>{b, a});
  StartAndFinish(*store, b, TaskState::kSucceeded, 2000);
  deps = store->UnfinishedDeps(c);
  REQUIRE(deps.ok());
  CHECK(*deps == std::vector<TaskId>{a});
  deps = store->UnfinishedDeps(a);
  REQUIRE(deps.ok());
  CHECK(deps->empty());
}

STORE_TEST_CASE("DeleteQueue refuses a queue with unfinished tasks and forgets an idle one") {
  auto store = OpenStore();
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}, "typo"));
  REQUIRE(store->SetQueuePaused("typo", true).ok());
  Status busy = store->DeleteQueue("typo");
  CHECK(busy.code() == ErrorCode::kInvalid);
  CHECK(busy.field() == "name");
  CHECK(busy.message().find("pending or running") != std::string::npos);

  StartAndFinish(*store, id, TaskState::kFailed, 2000);
  REQUIRE(store->DeleteQueue("typo").ok());
  CHECK(QueueNames(*store) == std::vector<std::string>{});
  CHECK(store->DeleteQueue("typo").code() == ErrorCode::kNotFound);
  CHECK(MustGet(*store, id).spec.queue == "typo");  // the finished task keeps its queue's name

  // A retried task brings its queue back (unpaused), so the chooser sees it again.
  auto requeued = store->Requeue(id, 3000);
  REQUIRE(requeued.ok());
  CHECK(*requeued);
  auto queues = store->QueueStates();
  REQUIRE(queues.ok());
  REQUIRE(queues->size() == 1);
  CHECK((*queues)[0].name == "typo");
  CHECK_FALSE((*queues)[0].paused);
  CHECK(Ready(*store, "typo") == id);
}

STORE_TEST_CASE("QueueStateOf reads one queue, QueuesNamedFrom counts a user's own") {
  auto store = OpenStore();
  for (const char* name : {"alice/a", "alice/b", "alice0", "alicex/c", "bob/a", "alice"}) {
    QueueState q;
    q.name = name;
    q.concurrency = 3;
    q.added = true;
    REQUIRE(store->AddQueue(q).ok());
  }
  auto one = store->QueueStateOf("alice/b");
  REQUIRE(one.ok());
  REQUIRE(one->has_value());
  CHECK((*one)->name == "alice/b");
  CHECK((*one)->concurrency == 3);
  CHECK((*one)->added);
  CHECK_FALSE(store->QueueStateOf("alice/zz")->has_value());
  CHECK(*store->QueuesNamedFrom("alice/") == 2);  // not "alice0", "alicex/c" or "alice"
  CHECK(*store->QueuesNamedFrom("bob/") == 1);
  CHECK(*store->QueuesNamedFrom("carol/") == 0);
  CHECK(*store->QueuesNamedFrom("a%/") == 0);  // no pattern: compared as text
}

STORE_TEST_CASE(
    "AddQueue makes a queue with its settings, kept while idle, and a second add fails") {
  auto store = OpenStore();
  QueueState q;
  q.name = "gpu";
  q.concurrency = 2;
  q.priority_mix = PriorityMix::kStrict;
  q.added = true;
  REQUIRE(store->AddQueue(q).ok());
  Status again = store->AddQueue(q);
  CHECK(again.code() == ErrorCode::kInvalid);
  CHECK(again.field() == "name");
  // A task comes and goes; the added queue stays with its settings.
  const TaskId id = MustInsert(*store, kAlice, Spec({"x"}, "gpu"));
  StartAndFinish(*store, id, TaskState::kFailed, 2000);
  auto purged = store->PurgeEnded(9000, 10);
  REQUIRE(purged.ok());
  CHECK(*purged == std::vector<TaskId>{id});
  auto states = store->QueueStates();
  REQUIRE(states.ok());
  REQUIRE(states->size() == 1);
  CHECK((*states)[0].concurrency == 2);
  CHECK((*states)[0].priority_mix == PriorityMix::kStrict);
  CHECK((*states)[0].added);
  REQUIRE(store->SetQueuePriorityMix("gpu", PriorityMix::kMixed).ok());
  REQUIRE(store->SetQueuePriorityMix("other", std::nullopt).ok());
  states = store->QueueStates();
  REQUIRE(states.ok());
  CHECK((*states)[0].priority_mix == PriorityMix::kMixed);
  REQUIRE(store->DeleteQueue("gpu").ok());
}

}  // namespace
}  // namespace tq
