// Sharded work (SPEC 12) through the real tq and tqd: `tq submit --shards N` (and a job with
// `shards = N`) makes one group of N tasks, each told its slice; the group's id is waited on,
// shown, cancelled and retried as one, and its hooks run once, when every shard has ended.
#include <doctest/doctest.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/jobs.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// The group's status as `tq status --json` gives it.
nlohmann::json GroupJson(const TestDaemon& d, const std::string& group) {
  const RunResult r = Tq(d, {"--json", "status", group});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

// The ids of the group's shards, by index.
std::vector<std::string> ShardIds(const TestDaemon& d, const std::string& group) {
  std::vector<std::string> ids;
  const nlohmann::json g = GroupJson(d, group);
  for (const auto& shard : g["shards"]) ids.push_back(shard["id"].dump());
  return ids;
}

// The first line of `text`, without its newline: the id tq printed.
std::string FirstLineOf(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

}  // namespace

TEST_CASE("tq submit --shards N: N tasks, each with its index and the total, waited on as one") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string out = d.dir() + "/slices";
  const RunResult r =
      Tq(d, {"--json", "submit", "--shards", "4", "--on-finish",
             "echo \"$TQ_TASK_ID $TQ_STATE\" >> " + Quoted(d.dir() + "/hook"), "--", "sh", "-c",
             "echo \"$TQ_SHARD_INDEX/$TQ_SHARD_TOTAL\" >> " + Quoted(out)});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const nlohmann::json submitted = nlohmann::json::parse(r.out);
  const std::string group = submitted["id"].dump();
  REQUIRE(submitted["shards"].size() == 4);

  REQUIRE(Tq(d, {"wait", group}).exit_code == 0);
  std::vector<std::string> slices = FileLines(out);
  std::sort(slices.begin(), slices.end());
  CHECK(slices == std::vector<std::string>{"0/4", "1/4", "2/4", "3/4"});

  const nlohmann::json g = GroupJson(d, group);
  CHECK(g["id"].dump() == group);
  CHECK(g["state"] == "succeeded");
  CHECK(g["total"] == 4);
  REQUIRE(g["shards"].size() == 4);
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(g["shards"][i]["index"] == i);
    CHECK(g["shards"][i]["id"] == submitted["shards"][i]);
    const nlohmann::json t = TaskJson(d, submitted["shards"][i].dump());
    CHECK(t["shard"]["group"].dump() == group);
    CHECK(t["shard"]["index"] == i);
    CHECK(t["shard"]["total"] == 4);
  }
  // The group's hook ran once, told of the group.
  REQUIRE(WaitFor([&] { return !FileLines(d.dir() + "/hook").empty(); }));
  CHECK(FileLines(d.dir() + "/hook") == std::vector<std::string>{group + " succeeded"});

  // Output is a shard's: the logs of a group name its shards.
  const RunResult logs = Tq(d, {"logs", group});
  CHECK(logs.exit_code == 2);
  CHECK(logs.err.find(group + " is a group of 4 shards") != std::string::npos);
  CHECK(Tq(d, {"logs", submitted["shards"][3].dump()}).exit_code == 0);

  // The human status of the group and of one shard.
  const RunResult human = Tq(d, {"status", group});
  CHECK(human.out.find("4 (4 succeeded)") != std::string::npos);
  const std::vector<std::string> ids = ShardIds(d, group);
  REQUIRE(ids.size() == 4);
  const RunResult shard = Tq(d, {"status", ids[2]});
  CHECK(shard.out.find("index 2 of 4, group " + group) != std::string::npos);
}

TEST_CASE("a group fails when a shard fails, its hook runs once, and tq retry reruns only those") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string flag = d.dir() + "/fixed", hook = d.dir() + "/hook";
  // Shard 1 fails until the flag exists.
  const std::string group = Submit(
      d, {"--shards", "3", "--on-failure",
          "echo \"$TQ_TASK_ID $TQ_STATE $TQ_EXIT_CODE\" >> " + Quoted(hook), "--", "sh", "-c",
          "echo run >> \"$0.$TQ_SHARD_INDEX\"; [ $TQ_SHARD_INDEX != 1 ] || [ -e " + Quoted(flag) +
              " ] || exit 7",
          d.dir() + "/runs"});
  CHECK(Tq(d, {"wait", group}).exit_code == 7);
  const nlohmann::json g = GroupJson(d, group);
  CHECK(g["state"] == "failed");
  CHECK(g["shards"][1]["state"] == "failed");
  CHECK(g["shards"][1]["exit_code"] == 7);
  REQUIRE(WaitFor([&] { return !FileLines(hook).empty(); }));
  CHECK(FileLines(hook) == std::vector<std::string>{group + " failed 7"});

  WriteFile(flag, "");
  const RunResult retry = Tq(d, {"--json", "retry", group});
  REQUIRE_MESSAGE(retry.exit_code == 0, retry.err);
  CHECK(Tq(d, {"wait", group}).exit_code == 0);
  CHECK(GroupJson(d, group)["state"] == "succeeded");
  // A task after the group waits for every shard.
  const std::string merge = Submit(d, {"--after", group, "--", "true"});
  CHECK(Tq(d, {"wait", merge}).exit_code == 0);
  CHECK(TaskJson(d, merge)["after"].size() == 3);
  // Only the failed shard ran again.
  CHECK(FileLines(d.dir() + "/runs.0").size() == 1);
  CHECK(FileLines(d.dir() + "/runs.1").size() == 2);
  CHECK(FileLines(d.dir() + "/runs.2").size() == 1);
}

TEST_CASE("tq cancel of a group cancels every shard that has not ended") {
  TestDaemon d("max_running = 2\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string group = Submit(d, {"--shards", "5", "--", "sleep", "600"});
  const std::vector<std::string> ids = ShardIds(d, group);
  REQUIRE(ids.size() == 5);
  REQUIRE(WaitFor([&] { return GroupJson(d, group)["state"] == "running"; }));
  REQUIRE(Tq(d, {"cancel", group}).exit_code == 0);
  REQUIRE(WaitFor([&] { return GroupJson(d, group)["state"] == "cancelled"; }));
  for (const std::string& id : ids) CHECK(TaskState(d, id) == "cancelled");
  CHECK(Tq(d, {"wait", group}).exit_code != 0);
}

TEST_CASE("--shards refuses a count out of range, a key and a batch, and changes nothing") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  for (const std::string n : {"0", "-1", "1001", "x"}) {
    CAPTURE(n);
    const RunResult r = Tq(d, {"submit", "--shards", n, "--", "true"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--shards") != std::string::npos);
  }
  const RunResult keyed = Tq(d, {"submit", "--shards", "2", "--key", "k", "--", "true"});
  CHECK(keyed.exit_code == 2);
  CHECK(keyed.err.find("--key") != std::string::npos);
  // 100 copies of 1 MiB of stdin would be 100 MiB in the store: over what a batch may bring.
  const RunResult big =
      Tq(d, {"submit", "--shards", "100", "--stdin", "--", "cat"}, std::string(1 << 20, 'x'));
  CHECK(big.exit_code == 2);
  CHECK(big.err.find("over the limit of 67108864 bytes") != std::string::npos);
  CHECK(ListTasks(d).empty());
  // A group id another user cannot see is not found, as a task's would be.
  CHECK(Tq(d, {"status", "999999"}).exit_code == 4);
}

TEST_CASE("shards after a task that failed fail at once, and the group's hook runs once") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string dep = Submit(d, {"--", "false"});
  REQUIRE(Tq(d, {"wait", dep}).exit_code == 1);
  const std::string hook = d.dir() + "/hook";
  const std::string group =
      Submit(d, {"--shards", "3", "--after", dep, "--on-failure",
                 "echo \"$TQ_TASK_ID $TQ_REASON\" >> " + Quoted(hook), "--", "true"});
  CHECK(GroupJson(d, group)["state"] == "failed");
  REQUIRE(WaitFor([&] { return !FileLines(hook).empty(); }));
  CHECK(FileLines(hook) == std::vector<std::string>{group + " dependency-failed"});
}

TEST_CASE("another user's group answers not found, and its shards' ids stay unknown") {
  const passwd* pw = getpwnam("nobody");
  if (geteuid() != 0 || pw == nullptr) {
    TQ_SKIP("needs root and a 'nobody' user");
  }
  const RunAs nobody{pw->pw_uid, pw->pw_gid};
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string group = Submit(d, {"--shards", "2", "--delay", "1h", "--", "true"});
  const std::vector<std::string> ids = ShardIds(d, group);
  REQUIRE(ids.size() == 2);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"status", group},
                                               {"wait", group},
                                               {"cancel", group},
                                               {"retry", group},
                                               {"logs", group},
                                               {"logs", group, group},
                                               {"submit", "--after", group, "--", "true"}}) {
    CAPTURE(args[0]);
    const RunResult r = TqAs(d, nobody, args);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("task " + group + " not found") != std::string::npos);
    for (const std::string& id : ids) CHECK(r.err.find(id) == std::string::npos);
  }
  CHECK(GroupJson(d, group)["state"] == "pending");  // nothing was changed
}

TEST_CASE(
    "a job with shards = 3 runs as one group: told its slices, one hook, one run to overlap") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string slices = d.dir() + "/slices", hook = d.dir() + "/hook", gate = d.dir() + "/go";
  const nlohmann::json on_finish = "echo \"$TQ_TASK_ID $TQ_STATE\" >> " + Quoted(hook);
  d.WriteJobFile("settle.toml",
                 JobFile("settle", "0 3 * * *",
                         "echo \"$TQ_SHARD_INDEX/$TQ_SHARD_TOTAL\" >> " + Quoted(slices) +
                             "; while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done",
                         {"shards = 3", "overlap = \"skip\"", "on_finish = " + on_finish.dump()}));
  Reload(d);

  const RunResult run = Tq(d, {"jobs", "run", "settle"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string group = FirstLineOf(run.out);
  const std::vector<std::string> ids = ShardIds(d, group);
  REQUIRE(ids.size() == 3);
  REQUIRE(WaitFor([&] { return !FileLines(slices).empty(); }));
  // The group is one run: while it runs, overlap = skip makes no other.
  const RunResult again = Tq(d, {"jobs", "run", "settle"});
  CHECK(again.exit_code == 1);
  CHECK_MESSAGE(again.err.find("skipped") != std::string::npos, again.err);

  WriteFile(gate, "");
  REQUIRE(Tq(d, {"wait", group}).exit_code == 0);
  std::vector<std::string> told = FileLines(slices);
  std::sort(told.begin(), told.end());
  CHECK(told == std::vector<std::string>{"0/3", "1/3", "2/3"});
  REQUIRE(WaitFor([&] { return !FileLines(hook).empty(); }));
  CHECK(FileLines(hook) == std::vector<std::string>{group + " succeeded"});
  for (const std::string& id : ids)
    CHECK(TaskJson(d, id)["labels"] == nlohmann::json{"job:settle"});

  // tq jobs tells of the group: its id and its outcome.
  const nlohmann::json job = JobJson(d, "settle");
  CHECK(job["last_task"].dump() == group);
  CHECK(job["last_state"] == "succeeded");
  const RunResult show_json = Tq(d, {"jobs", "show", "settle", "--json"});
  REQUIRE_MESSAGE(show_json.exit_code == 0, show_json.err);
  CHECK(nlohmann::json::parse(show_json.out)["shards"] == 3);
  const RunResult show = Tq(d, {"jobs", "show", "settle"});
  CHECK_MESSAGE(show.out.find("3 per run") != std::string::npos, show.out);
  // Once it ended, the next run is made.
  const RunResult next = Tq(d, {"jobs", "run", "settle"});
  CHECK(next.exit_code == 0);
  CHECK(FirstLineOf(next.out) != group);
}

TEST_CASE("a sharded job fires each time as one group") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("tick.toml", JobFile("tick", "* * * * * *", "true",
                                      {"shards = 2", "misfire = \"skip\"", "overlap = \"allow\""}));
  Reload(d);
  REQUIRE(WaitFor([&] { return JobJson(d, "tick")["last_state"] == "succeeded"; }));
  REQUIRE(Tq(d, {"jobs", "disable", "tick"}).exit_code == 0);
  // A firing may have come between the two: its group ends too.
  REQUIRE(WaitFor([&] { return JobJson(d, "tick")["last_state"] == "succeeded"; }));
  const std::string group = JobJson(d, "tick")["last_task"].dump();
  const nlohmann::json g = GroupJson(d, group);
  CHECK(g["total"] == 2);
  CHECK(g["state"] == "succeeded");
  // Every run of the job is a shard of a group of two.
  for (const nlohmann::json& t : ListTasks(d, {"--label", "job:tick"})) {
    CAPTURE(t.dump());
    CHECK(t["shard"]["total"] == 2);
  }
}

TEST_CASE("overlap = replace stops every shard of the running group before the new group runs") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/go", hook = d.dir() + "/hook";
  const nlohmann::json on_finish = "echo \"$TQ_TASK_ID $TQ_STATE\" >> " + Quoted(hook);
  d.WriteJobFile(
      "swap.toml",
      JobFile("swap", "0 3 * * *", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done",
              {"shards = 2", "overlap = \"replace\"", "on_finish = " + on_finish.dump()}));
  Reload(d);
  const RunResult first = Tq(d, {"jobs", "run", "swap"});
  REQUIRE_MESSAGE(first.exit_code == 0, first.err);
  const std::string old_group = FirstLineOf(first.out);
  REQUIRE(WaitFor([&] { return GroupJson(d, old_group)["state"] == "running"; }));

  const RunResult second = Tq(d, {"jobs", "run", "swap"});
  REQUIRE_MESSAGE(second.exit_code == 0, second.err);
  const std::string new_group = FirstLineOf(second.out);
  CHECK(new_group != old_group);
  // Every shard of the old group is stopped; the new group runs only after them.
  CHECK(Tq(d, {"wait", old_group}).exit_code != 0);
  const nlohmann::json old_json = GroupJson(d, old_group);
  CHECK(old_json["state"] == "cancelled");
  for (const auto& shard : old_json["shards"]) CHECK(shard["state"] == "cancelled");
  WriteFile(gate, "");
  REQUIRE(Tq(d, {"wait", new_group}).exit_code == 0);
  // Times as RFC 3339 text that sorts: milliseconds always written.
  const auto sortable = [](std::string t) {
    if (t.find('.') == std::string::npos) t.insert(t.size() - 1, ".000");
    return t;
  };
  std::string old_end;
  for (const auto& shard : old_json["shards"]) {
    const nlohmann::json task = TaskJson(d, shard["id"].dump());
    for (const auto& a : task["attempt_log"])
      old_end = std::max(old_end, sortable(a["ended"].get<std::string>()));
  }
  const nlohmann::json new_json = GroupJson(d, new_group);
  for (const auto& shard : new_json["shards"]) {
    const nlohmann::json attempts = TaskJson(d, shard["id"].dump())["attempt_log"];
    REQUIRE(attempts.size() == 1);
    CHECK(sortable(attempts[0]["started"].get<std::string>()) >= old_end);
  }
  REQUIRE(WaitFor([&] { return FileLines(hook).size() == 2; }));
  std::vector<std::string> told = FileLines(hook);
  std::sort(told.begin(), told.end());
  std::vector<std::string> want = {old_group + " cancelled", new_group + " succeeded"};
  std::sort(want.begin(), want.end());
  CHECK(told == want);
}
