// tq events -f (SPEC 7a): each state change of a task one may see, as one JSON line, in order,
// across a daemon restart; another user's tasks are never shown.
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;
using nlohmann::json;

namespace {

// The events of task `id` among the whole lines of `out` (a last line still being written is
// left for later).
std::vector<json> EventsOf(const std::string& out, const std::string& id) {
  std::vector<json> events;
  size_t start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
    json e = json::parse(out.substr(start, nl - start), nullptr, false);
    REQUIRE_MESSAGE(e.is_object(), "not a JSON line: " << out.substr(start, nl - start));
    if (std::to_string(e["id"].get<long long>()) == id) events.push_back(std::move(e));
  }
  return events;
}

// "state/reason/attempt" of each event, in order, e.g. "pending/submitted/0 running/started/1".
std::string Sequence(const std::vector<json>& events) {
  std::string s;
  for (const json& e : events) {
    if (!s.empty()) s += ' ';
    s += e["state"].get<std::string>() + "/" + e["reason"].get<std::string>() + "/" +
         std::to_string(e["attempt"].get<int>());
  }
  return s;
}

// Waits until the follower shows `id`'s events ending in a terminal state; their sequence.
std::string WaitEnded(Process& follower, const std::string& id) {
  follower.WaitOutput([&](const std::string& out) {
    const auto events = EventsOf(out, id);
    if (events.empty()) return false;
    const std::string state = events.back()["state"];
    return state != "pending" && state != "running";
  });
  return Sequence(EventsOf(follower.out(), id));
}

// Returns once `follower` is subscribed: submits tasks due in an hour through `submit` until
// the follower shows one of them (a subscription made after a submit never shows it).
void WaitSubscribed(Process& follower, const std::function<std::string()>& submit) {
  for (int i = 0; i < 60; ++i) {
    const std::string probe = submit();
    if (follower.WaitOutput([&](const std::string& out) { return !EventsOf(out, probe).empty(); },
                            1.0))
      return;
  }
  FAIL("tq events -f never showed a new task; stderr: " << follower.err());
}

}  // namespace

TEST_CASE("events -f prints each state change as a JSON line, retries included") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  auto follower = TqBackground(d, {"events", "-f"});
  WaitSubscribed(*follower, [&] { return Submit(d, {"--delay", "1h", "--", "true"}); });

  const std::string ok = Submit(d, {"--queue", "q1", "--label", "nice", "--", "true"});
  CHECK(WaitEnded(*follower, ok) == "pending/submitted/0 running/started/1 succeeded/exit/1");
  const std::string bad = Submit(d, {"--retries", "1", "--backoff", "fixed", "--backoff-base",
                                     "100ms", "--no-jitter", "--", "sh", "-c", "exit 3"});
  CHECK(WaitEnded(*follower, bad) ==
        "pending/submitted/0 running/started/1 pending/retry/1 running/started/2 failed/exit/2");

  const auto ok_events = EventsOf(follower->out(), ok);
  REQUIRE(ok_events.size() == 3);
  for (const json& e : ok_events) {
    CHECK(e["queue"] == "q1");
    CHECK(e["labels"] == json::array({"nice"}));
    CHECK_FALSE(e.contains("job"));
    CHECK(TimeMs(e["time"]) > 0);
  }
  CHECK_FALSE(ok_events[0].contains("exit_code"));
  CHECK(ok_events[2]["exit_code"] == 0);
  const auto bad_events = EventsOf(follower->out(), bad);
  REQUIRE(bad_events.size() == 5);
  CHECK(bad_events[2]["exit_code"] == 3);  // the attempt that failed and is retried
  CHECK(bad_events[4]["exit_code"] == 3);
  CHECK(TimeMs(bad_events[0]["time"]) <= TimeMs(bad_events[4]["time"]));

  // SIGINT ends the follow as a success; plain `tq events` is refused as a usage error.
  REQUIRE(kill(follower->pid(), SIGINT) == 0);
  const RunResult stopped = follower->Finish();
  CHECK(stopped.exit_code == 0);
  CHECK(stopped.err == "");
  const RunResult plain = Tq(d, {"events"});
  CHECK(plain.exit_code == 2);
  CHECK(plain.err.find("events -f") != std::string::npos);
}

TEST_CASE("events -f shows a user only their own tasks, and root sees all") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) {
    TQ_SKIP("needs root and a 'nobody' user");
  }
  const RunAs nobody{pw->pw_uid, pw->pw_gid};
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const RunResult ping = TqAs(d, nobody, {"ping"});  // also copies tq where nobody may run it
  REQUIRE_MESSAGE(ping.exit_code == 0, ping.err);
  const auto submit_as_nobody = [&] {
    const RunResult r = TqAs(d, nobody, {"submit", "--delay", "1h", "--", "true"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return r.out.substr(0, r.out.size() - 1);
  };
  Process theirs({d.dir() + "/tq-as-other-user", "--socket", d.socket(), "events", "-f"},
                 {d.MarkEnv()}, "", nobody);
  auto root = TqBackground(d, {"events", "-f"});
  WaitSubscribed(theirs, submit_as_nobody);
  WaitSubscribed(*root, [&] { return Submit(d, {"--delay", "1h", "--", "true"}); });

  const std::string mine = Submit(d, {"--", "true"});
  CHECK(WaitEnded(*root, mine) == "pending/submitted/0 running/started/1 succeeded/exit/1");
  // Events reach each follower in order: once nobody's follower shows a task of theirs submitted
  // after root's task ended, it would have shown root's task before it.
  const std::string their_task = submit_as_nobody();
  REQUIRE(theirs.WaitOutput(
      [&](const std::string& out) { return !EventsOf(out, their_task).empty(); }));
  CHECK(EventsOf(theirs.out(), mine).empty());
  CHECK(
      root->WaitOutput([&](const std::string& out) { return !EventsOf(out, their_task).empty(); }));
}

TEST_CASE("events -f keeps following across a daemon restart") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  auto follower = TqBackground(d, {"events", "-f"});
  const auto probe = [&] { return Submit(d, {"--delay", "1h", "--", "true"}); };
  WaitSubscribed(*follower, probe);
  const std::string before = Submit(d, {"--", "true"});
  CHECK(WaitEnded(*follower, before) == "pending/submitted/0 running/started/1 succeeded/exit/1");

  d.Restart();
  WaitSubscribed(*follower, probe);  // it reconnected and subscribed again
  const std::string after = Submit(d, {"--", "true"});
  CHECK(WaitEnded(*follower, after) == "pending/submitted/0 running/started/1 succeeded/exit/1");
  CHECK(follower->err() == "");  // nothing printed for the gap
}

TEST_CASE("events -f shows a success expiring at the end of its retention") {
  TestDaemon d("success_retention = \"1s\"\n");
  TQ_LOG_ON_FAILURE(d);
  auto follower = TqBackground(d, {"events", "-f"});
  WaitSubscribed(*follower, [&] { return Submit(d, {"--delay", "1h", "--", "true"}); });
  const std::string ok = Submit(d, {"--", "true"});
  REQUIRE(follower->WaitOutput([&](const std::string& out) {
    const auto events = EventsOf(out, ok);
    return !events.empty() && events.back()["state"] == "expired";
  }));
  CHECK(Sequence(EventsOf(follower->out(), ok)) ==
        "pending/submitted/0 running/started/1 succeeded/exit/1 expired/exit/1");
  kill(follower->pid(), SIGINT);
  follower->Finish();
}
