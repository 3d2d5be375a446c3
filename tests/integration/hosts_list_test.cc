// `tq hosts` (SPEC 12): the hosts of the store, each live, silent, stopped or fenced, with its last
// heartbeat and what it runs, the answering one marked; with SQLite the one host is the one that
// answers, and the names it went by before a rename are silent.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "support/pg_server.h"
#include "support/skip.h"
#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// `tq hosts --json`, parsed; REQUIREs success.
nlohmann::json HostsJson(const TestDaemon& d) {
  const RunResult r = Tq(d, {"hosts", "--json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return nlohmann::json::parse(r.out);
}

// A task that runs until `gate` exists.
std::vector<std::string> UntilGate(const std::string& gate) {
  return {"--", "sh", "-c", "while [ ! -e " + Quoted(gate) + " ]; do sleep 0.05; done"};
}

}  // namespace

TEST_CASE("hosts: with SQLite the one host is the one that answered, live, with what it runs") {
  TestDaemon d("host = \"web-1\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string id = Submit(d, UntilGate(gate));
  REQUIRE(WaitFor([&] { return TaskJson(d, id)["state"] == "running"; }));

  nlohmann::json out;
  REQUIRE(WaitFor([&] {
    out = HostsJson(d);
    return out["hosts"].size() == 1 && out["hosts"][0]["running"] == 1;
  }));
  INFO(out.dump());
  CHECK(out["shared"] == false);
  CHECK(out["lease_ms"] == 30000);
  const nlohmann::json& host = out["hosts"][0];
  CHECK(host["name"] == "web-1");
  CHECK(host["state"] == "live");
  CHECK(host["running"] == 1);
  CHECK(host["max_running"].get<int>() >= 1);
  CHECK(host["this"] == true);
  CHECK(host["version"].is_string());
  CHECK(host["epoch"].get<long long>() >= 1);
  CHECK(host["heartbeat_age_ms"].get<long long>() >= 0);
  CHECK(TimeMs(host["started"]) > 0);
  CHECK(TimeMs(host["heartbeat"]) > 0);

  const RunResult table = Tq(d, {"hosts"});
  CHECK(table.exit_code == 0);
  CHECK_MESSAGE(table.out.find("HOST") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find("web-1*") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find("1/") != std::string::npos, table.out);

  // The metrics say the same, per host.
  const RunResult metrics = Tq(d, {"stats", "--prometheus"});
  CHECK(metrics.out.find("tq_host_state{host=\"web-1\",state=\"live\"} 1\n") != std::string::npos);
  CHECK(metrics.out.find("tq_host_running{host=\"web-1\"} 1\n") != std::string::npos);

  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
  CHECK(HostsJson(d)["hosts"][0]["running"] == 0);
}

TEST_CASE("hosts: a SQLite host's old name after a rename is silent, the new one runs its tasks") {
  TestDaemon d("host = \"web-1\"\n");
  TQ_LOG_ON_FAILURE(d);
  const std::string gate = d.dir() + "/gate";
  const std::string id = Submit(d, UntilGate(gate));
  REQUIRE(WaitFor([&] { return TaskJson(d, id)["state"] == "running"; }));
  d.WriteConfig("host = \"web-2\"\n");
  d.Restart();

  nlohmann::json out = HostsJson(d);
  INFO(out.dump());
  REQUIRE(out["hosts"].size() == 2);
  const nlohmann::json& old_name = out["hosts"][0];  // by name
  const nlohmann::json& new_name = out["hosts"][1];
  CHECK(old_name["name"] == "web-1");
  CHECK(old_name["state"] == "silent");
  CHECK(old_name["this"] == false);
  CHECK(old_name["running"] == 0);
  CHECK(new_name["name"] == "web-2");
  CHECK(new_name["state"] == "live");
  CHECK(new_name["this"] == true);
  CHECK(new_name["running"] == 1);

  const RunResult table = Tq(d, {"hosts"});
  CHECK_MESSAGE(table.out.find("web-2*") != std::string::npos, table.out);
  CHECK_MESSAGE(table.out.find("web-1*") == std::string::npos, table.out);

  WriteFile(gate, "");
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
}

TEST_CASE(
    "hosts: a host whose tqd stopped cleanly is stopped at once for the others, and live "
    "again when it starts") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  TestDaemon a("store = " + Quoted(uri) + "\nhost = \"a\"\n");
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b("store = " + Quoted(uri) + "\nhost = \"b\"\n");
  TQ_LOG_ON_FAILURE(b);
  // The state of host `name` as `d` lists it.
  const auto state_of = [](const TestDaemon& d, const std::string& name) {
    const nlohmann::json hosts = HostsJson(d);
    for (const nlohmann::json& h : hosts["hosts"])
      if (h["name"] == name) return h["state"].get<std::string>();
    return std::string("none");
  };
  CHECK(state_of(a, "b") == "live");
  b.Stop();
  CHECK(state_of(a, "b") == "stopped");  // not live until its lease (30 s) runs out
  b.Start();
  b.WaitReady();
  CHECK(state_of(a, "b") == "live");
}

TEST_CASE("hosts: a task placed on a host that stopped waits for it, and WHEN says so") {
  std::string why;
  const std::string uri = tq::test::FreshSchemaUri(&why);
  if (uri.empty()) TQ_SKIP(why);
  const std::string queue = "\n[queues.default]\nhosts = \"any\"\n";
  TestDaemon a("store = " + Quoted(uri) + "\nhost = \"a\"" + queue);
  TQ_LOG_ON_FAILURE(a);
  TestDaemon b("store = " + Quoted(uri) + "\nhost = \"b\"" + queue);
  TQ_LOG_ON_FAILURE(b);
  b.Stop();
  const std::string id = Submit(a, {"--host", "b", "--", "true"});
  const nlohmann::json task = TaskJson(a, id);
  CHECK(task["state"] == "pending");
  CHECK(task["waiting"]["host"] == nlohmann::json({{"name", "b"}, {"state", "stopped"}}));
  const RunResult list = Tq(a, {"list"});
  CHECK_MESSAGE(list.out.find("waiting for host b (stopped)") != std::string::npos, list.out);
  b.Start();
  b.WaitReady();
  CHECK(Tq(a, {"wait", id}).exit_code == 0);
}
