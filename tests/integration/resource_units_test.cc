// Resource units (SPEC 14): tasks ask for units of tqd.toml's [resources] with --use, wait for
// them visibly, are told which they got, hold them while an attempt runs (across a restart of
// tqd too) and give them back at any end; a request that cannot be met is refused at submit.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/jobs.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// A task that prints its units and runs until `gate` exists.
std::vector<std::string> GatedUnits(const std::string& gate) {
  return {"--", "sh", "-c",
          "echo \"gpu=$TQ_RESOURCE_GPU cuda=$CUDA_VISIBLE_DEVICES lic=$TQ_RESOURCE_LICENCE\"; "
          "while [ ! -e " +
              Quoted(gate) + " ]; do sleep 0.05; done"};
}

// `--use` flags followed by GatedUnits(gate).
std::vector<std::string> Using(std::vector<std::string> use, const std::string& gate) {
  std::vector<std::string> args;
  for (const std::string& u : use) {
    args.push_back("--use");
    args.push_back(u);
  }
  for (const std::string& a : GatedUnits(gate)) args.push_back(a);
  return args;
}

// The first line a task printed.
std::string FirstLine(const TestDaemon& d, const std::string& id) {
  std::string line;
  WaitFor([&] {
    const RunResult r = Tq(d, {"logs", id});
    line = r.out.substr(0, r.out.find('\n'));
    return !line.empty();
  });
  return line;
}

// `tq resources --json`, as resource name -> its entry.
std::map<std::string, nlohmann::json> Resources(const TestDaemon& d) {
  const RunResult r = Tq(d, {"--json", "resources"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  std::map<std::string, nlohmann::json> out;
  for (const auto& res : nlohmann::json::parse(r.out)) out[res["name"]] = res;
  return out;
}

// What pending task `id` waits for, as its JSON says: the resource, or "" for none.
std::string WaitsFor(const TestDaemon& d, const std::string& id) {
  const nlohmann::json w = TaskJson(d, id)["waiting"];
  return w.is_object() && w["units"].is_string() ? w["units"].get<std::string>() : "";
}

}  // namespace

TEST_CASE("a task is told its units, waits visibly for them, and never blocks one needing none") {
  TestDaemon d("max_running = 8\n[resources]\ngpu = [\"a\", \"b\"]\nlicence = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate1 = d.dir() + "/gate1", gate2 = d.dir() + "/gate2";
  const std::string one = Submit(d, Using({"gpu", "licence=1"}, gate1));
  REQUIRE(WaitState(d, one, "running"));
  CHECK(FirstLine(d, one) == "gpu=a cuda=a lic=0");

  const std::string both = Submit(d, Using({"gpu=2"}, gate2));
  const std::string plain = Submit(d, {"--", "echo", "free"});
  CHECK(WaitState(d, plain, "succeeded"));  // behind the waiting task, and not held back by it
  CHECK(TaskState(d, both) == "pending");
  CHECK(WaitsFor(d, both) == "gpu");
  const RunResult list = Tq(d, {"list"});
  CHECK_MESSAGE(list.out.find("waiting for gpu") != std::string::npos, list.out);
  const RunResult status = Tq(d, {"status", both});
  CHECK_MESSAGE(status.out.find("waiting for gpu") != std::string::npos, status.out);
  CHECK(status.out.find("gpu 2") != std::string::npos);

  auto res = Resources(d);
  CHECK(res["gpu"]["total"] == 2);
  CHECK(res["gpu"]["in_use"] == 1);
  CHECK(res["gpu"]["units"][0]["task"] == std::stoll(one));
  CHECK(res["gpu"]["units"][1]["task"].is_null());
  CHECK(res["licence"]["in_use"] == 1);
  const RunResult table = Tq(d, {"resources"});
  CHECK(table.out.find("a:task " + one) != std::string::npos);
  const RunResult metrics = Tq(d, {"stats", "--prometheus"});
  CHECK(metrics.out.find("tq_resource_units{resource=\"gpu\",state=\"in_use\"} 1\n") !=
        std::string::npos);
  CHECK(metrics.out.find("tq_resource_units{resource=\"gpu\",state=\"free\"} 1\n") !=
        std::string::npos);

  WriteFile(gate1, "");  // its end gives both units back: the waiting task gets them
  REQUIRE(WaitState(d, both, "running"));
  CHECK(FirstLine(d, both) == "gpu=a,b cuda=a,b lic=");
  CHECK(TaskJson(d, both)["attempt_log"][0]["units"] == nlohmann::json{{"gpu", {"a", "b"}}});
  CHECK(Tq(d, {"status", one}).out.find("attempt 1 held gpu a, licence 0") != std::string::npos);
  WriteFile(gate2, "");
  CHECK(Tq(d, {"wait", one, both}).exit_code == 0);
  CHECK(Resources(d)["gpu"]["in_use"] == 0);
}

TEST_CASE("two tasks racing for the last unit: one runs, the other gets it when it is free") {
  TestDaemon d("max_running = 8\n[resources]\ngpu = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::vector<std::string> submit = {
      "submit",
      "--use",
      "gpu",
      "--",
      "sh",
      "-c",
      "echo $TQ_RESOURCE_GPU; while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"};
  auto first = TqBackground(d, submit);
  auto second = TqBackground(d, submit);
  const RunResult a = first->Finish(), b = second->Finish();
  REQUIRE_MESSAGE(a.exit_code == 0, a.err);
  REQUIRE_MESSAGE(b.exit_code == 0, b.err);
  const std::string ids[] = {a.out.substr(0, a.out.find('\n')), b.out.substr(0, b.out.find('\n'))};
  std::string running, waiting;
  REQUIRE(WaitFor([&] {
    const std::string s0 = TaskState(d, ids[0]), s1 = TaskState(d, ids[1]);
    if (s0 == "running" && s1 == "pending") running = ids[0], waiting = ids[1];
    if (s1 == "running" && s0 == "pending") running = ids[1], waiting = ids[0];
    return !running.empty();
  }));
  CHECK(WaitsFor(d, waiting) == "gpu");
  CHECK(Resources(d)["gpu"]["units"][0]["task"] == std::stoll(running));
  WriteFile(gate, "");
  REQUIRE(WaitState(d, running, "succeeded"));
  CHECK(Tq(d, {"wait", waiting}).exit_code == 0);
  CHECK(FirstLine(d, running) == "0");
  CHECK(FirstLine(d, waiting) == "0");
  // Never both at once: the second started after the first ended.
  const nlohmann::json r = TaskJson(d, running)["attempt_log"][0];
  const nlohmann::json w = TaskJson(d, waiting)["attempt_log"][0];
  CHECK(TimeMs(w["started"]) >= TimeMs(r["ended"]));
}

TEST_CASE("units held across a kill -9 of tqd stay with the running task until it ends") {
  TestDaemon d("max_running = 8\n[resources]\ngpu = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string holder = Submit(d, Using({"gpu"}, gate));
  REQUIRE(WaitState(d, holder, "running"));
  d.Kill9();
  d.Restart();
  const std::string next = Submit(d, Using({"gpu"}, d.dir() + "/gate2"));
  CHECK(WaitsFor(d, next) == "gpu");
  CHECK(TaskState(d, holder) == "running");
  CHECK(Resources(d)["gpu"]["units"][0]["task"] == std::stoll(holder));
  // A cancel is an end too: the unit goes to the waiting task.
  CHECK(Tq(d, {"cancel", "--kill", holder}).exit_code == 0);
  REQUIRE(WaitState(d, next, "running"));
  CHECK(FirstLine(d, next) == "gpu=0 cuda=0 lic=");
  CHECK(Tq(d, {"cancel", next}).exit_code == 0);
}

TEST_CASE("a request tqd.toml cannot meet is refused at submit, naming it, and creates nothing") {
  TestDaemon d("[resources]\ngpu = 2\n");
  TQ_LOG_ON_FAILURE(d);
  const struct {
    std::vector<std::string> use;
    int exit_code;
    const char* message;
  } cases[] = {
      {{"--use", "gpu=3"}, 2, "tq: use: gpu=3: only 2 units of gpu exist\n"},
      {{"--use", "tpu"},
       2,
       "tq: use: \"tpu\" is not a resource of this daemon (tqd.toml's [resources] names gpu)\n"},
      {{"--use", "gpu=0"}, 2, "tq: --use: \"gpu=0\" is not NAME=COUNT with a count from 1 to"},
      {{"--use", "Gpu"}, 2, "tq: --use: \"Gpu\" is not a resource name"},
      {{"--use", "gpu", "--use", "gpu=2"}, 2, "tq: --use: gpu is named twice"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"submit"};
    args.insert(args.end(), c.use.begin(), c.use.end());
    args.insert(args.end(), {"--", "true"});
    CAPTURE(c.message);
    const RunResult r = Tq(d, args);
    CHECK(r.exit_code == c.exit_code);
    CHECK(r.out.empty());
    CHECK_MESSAGE(r.err.rfind(c.message, 0) == 0, r.err);
  }
  const RunResult batch = Tq(d, {"submit", "--batch", "--json-lines"},
                             "{\"argv\":[\"true\"]}\n"
                             "{\"argv\":[\"true\"],\"use\":{\"gpu\":5}}\n");
  CHECK(batch.exit_code == 2);
  CHECK_MESSAGE(batch.err.find("use: gpu=5: only 2 units of gpu exist") != std::string::npos,
                batch.err);
  CHECK(ListTasks(d).empty());
}

TEST_CASE("a reload adds units to waiting tasks and never takes one from a running task") {
  TestDaemon d("max_running = 8\n[resources]\ngpu = 1\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate1 = d.dir() + "/gate1", gate2 = d.dir() + "/gate2";
  const std::string first = Submit(d, Using({"gpu"}, gate1));
  REQUIRE(WaitState(d, first, "running"));
  const std::string second = Submit(d, Using({"gpu"}, gate2));
  CHECK(WaitsFor(d, second) == "gpu");

  d.WriteConfig("max_running = 8\n[resources]\ngpu = 2\n");
  const RunResult grow = Tq(d, {"reload"});
  CHECK_MESSAGE(grow.exit_code == 0, grow.err);
  CHECK(grow.out.find("tqd.toml: resources.gpu changed\n") != std::string::npos);
  REQUIRE(WaitState(d, second, "running"));
  CHECK(FirstLine(d, second) == "gpu=1 cuda=1 lic=");

  // Unit 0 leaves tqd.toml while the first task holds it: the task keeps it.
  d.WriteConfig("max_running = 8\n[resources]\ngpu = [\"1\"]\n");
  CHECK(Tq(d, {"reload"}).exit_code == 0);
  const std::string third = Submit(d, Using({"gpu"}, gate1));
  CHECK(WaitsFor(d, third) == "gpu");
  CHECK(TaskState(d, first) == "running");
  auto res = Resources(d);
  CHECK(res["gpu"]["total"] == 1);
  REQUIRE(res["gpu"]["units"].size() == 2);
  CHECK(res["gpu"]["units"][1]["name"] == "0");
  CHECK(res["gpu"]["units"][1]["configured"] == false);
  CHECK(res["gpu"]["units"][1]["task"] == std::stoll(first));
  WriteFile(gate2, "");  // unit 1 comes free: the third task gets it, never unit 0
  REQUIRE(WaitState(d, third, "running"));
  CHECK(FirstLine(d, third) == "gpu=1 cuda=1 lic=");
  WriteFile(gate1, "");
  CHECK(Tq(d, {"wait", first, second, third}).exit_code == 0);
}

TEST_CASE("a job asks for units with use, and one asking for an unknown resource is refused") {
  TestDaemon d("[resources]\ngpu = [\"g0\"]\n");
  TQ_LOG_ON_FAILURE(d);
  d.WriteJobFile("train.toml",
                 JobFile("train", "0 0 1 1 *", "echo $TQ_RESOURCE_GPU", {"use = { gpu = 1 }"}));
  Reload(d);
  const RunResult run = Tq(d, {"jobs", "run", "train"});
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::string id = run.out.substr(0, run.out.find('\n'));
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(FirstLine(d, id) == "g0");
  CHECK(TaskJson(d, id)["use"] == nlohmann::json{{"gpu", 1}});

  d.WriteJobFile("train.toml", JobFile("train", "0 0 1 1 *", "true", {"use = { tpu = 1 }"}));
  const RunResult bad = Tq(d, {"reload"});
  CHECK(bad.exit_code == 2);
  CHECK_MESSAGE(bad.err.find(d.jobs_dir() + "/train.toml:5: use: \"tpu\" is not a resource") !=
                    std::string::npos,
                bad.err);
}

TEST_CASE("a task waiting for more units than a reload left says it cannot start") {
  TestDaemon d("[resources]\ngpu = 2\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string id = Submit(d, {"--delay", "1h", "--use", "gpu=2", "--", "true"});
  d.WriteConfig("[resources]\ngpu = 1\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  const nlohmann::json w = TaskJson(d, id)["waiting"];
  CHECK(w["cannot_start"] == "use: gpu=2: only 1 unit of gpu exist");
  const RunResult list = Tq(d, {"list"});
  CHECK_MESSAGE(
      list.out.find("cannot start: use: gpu=2: only 1 unit of gpu exist") != std::string::npos,
      list.out);
  // Given back its units, it waits as any task does.
  d.WriteConfig("[resources]\ngpu = 2\n");
  REQUIRE(Tq(d, {"reload"}).exit_code == 0);
  CHECK(TaskJson(d, id)["waiting"]["cannot_start"].is_null());
  Tq(d, {"cancel", id});
}
