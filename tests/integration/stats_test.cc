// tq stats and metrics_textfile (SPEC 11): the counts and counters of a real tqd, read back
// through a real Prometheus parser (Debian's python3-prometheus-client), so the exposition is
// what Prometheus and node_exporter accept.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "support/test_daemon.h"

using namespace tqtest;

namespace {

// Parses an exposition with prometheus_client and prints one JSON object: sample name ->
// list of [labels, value].
constexpr const char* kParser = R"(
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.setdefault(s.name, []).append([s.labels, s.value])
print(json.dumps(out))
)";

// The samples of `exposition` as the parser read them; REQUIREs that it parsed.
nlohmann::json Parse(const std::string& exposition) {
  Process p({"/usr/bin/python3", "-c", kParser}, {}, exposition);
  const RunResult r = p.Finish();
  INFO(r.err);
  INFO(exposition);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

// The value of sample `name` whose labels include `labels`; -1 when absent.
double Value(const nlohmann::json& samples, const std::string& name,
             const nlohmann::json& labels = nlohmann::json::object()) {
  if (!samples.contains(name)) return -1;
  for (const auto& s : samples[name]) {
    bool match = true;
    for (const auto& [k, v] : labels.items()) match = match && s[0].value(k, "") == v;
    if (match) return s[1].get<double>();
  }
  return -1;
}

}  // namespace

TEST_CASE("tq stats --prometheus and metrics_textfile give what a Prometheus parser reads") {
  const std::string toml = "metrics_interval = \"1s\"\n";
  TestDaemon d(toml);
  TQ_LOG_ON_FAILURE(d);
  // The daemon's directory exists only now: restart it with the textfile inside it.
  const std::string textfile = d.dir() + "/tq.prom";
  d.WriteConfig(toml + "metrics_textfile = " + Quoted(textfile) + "\n[queues.ticks]\n");
  // A job firing every second whose run lasts longer: firings that run and firings that
  // overlap skips. Its runs have their own queue, so the default queue's counts are exact.
  d.WriteJobFile("tick.toml",
                 "[[job]]\nname = \"tick\"\nschedule = \"* * * * * *\"\ncommand = \"sleep 2\"\n"
                 "queue = \"ticks\"\n");
  d.Restart();

  const std::string ok = Submit(d, {"--", "true"});
  const std::string bad = Submit(d, {"--", "sh", "-c", "exit 3"});
  const std::string urgent = Submit(d, {"--priority", "1", "--", "true"});
  REQUIRE(Tq(d, {"wait", ok, urgent}).exit_code == 0);
  REQUIRE(Tq(d, {"wait", bad}).exit_code == 3);

  nlohmann::json m;
  REQUIRE(WaitFor([&] {
    const RunResult r = Tq(d, {"stats", "--prometheus"});
    REQUIRE(r.exit_code == 0);
    m = Parse(r.out);
    return Value(m, "tq_cron_firings_total", {{"result", "run"}}) >= 1 &&
           Value(m, "tq_cron_firings_total", {{"result", "overlap"}}) >= 1;
  }));
  // Every created task counts, by where it came from: the three submits and the job's firings.
  CHECK(Value(m, "tq_tasks_submitted_total", {{"source", "submit"}}) == 3);
  CHECK(Value(m, "tq_tasks_submitted_total", {{"source", "job"}}) ==
        Value(m, "tq_cron_firings_total", {{"result", "run"}}));
  CHECK(Value(m, "tq_tasks_submitted_total", {{"source", "retry"}}) == 0);
  CHECK(Value(m, "tq_tasks_finished_total", {{"state", "failed"}}) == 1);
  CHECK(Value(m, "tq_tasks_finished_total", {{"state", "succeeded"}}) >= 2);
  CHECK(Value(m, "tq_tasks", {{"queue", "default"}, {"state", "failed"}}) == 1);
  CHECK(Value(m, "tq_tasks", {{"queue", "default"}, {"state", "succeeded"}}) == 2);
  CHECK(Value(m, "tq_tasks", {{"queue", "default"}, {"state", "pending"}}) == 0);
  CHECK(Value(m, "tq_chooser_picks_total", {{"priority", "1"}}) == 1);
  CHECK(Value(m, "tq_run_seconds_count") >= 3);
  CHECK(Value(m, "tq_run_seconds_bucket", {{"le", "+Inf"}}) == Value(m, "tq_run_seconds_count"));
  CHECK(Value(m, "tq_queue_wait_seconds_count") >= 3);
  CHECK(Value(m, "tq_store_commit_seconds_count") > 0);
  CHECK(Value(m, "tq_store_bytes") > 0);
  CHECK(Value(m, "tq_cron_misfires_total") == 0);
  CHECK(Value(m, "tq_start_time_seconds") > 1.7e9);

  // The textfile says the same, is readable by node_exporter, and leaves no temporary file.
  REQUIRE(WaitFor([&] {
    return ReadFile(textfile).find("tq_tasks_submitted_total{source=\"submit\"} 3\n") !=
           std::string::npos;
  }));
  const nlohmann::json file = Parse(ReadFile(textfile));
  CHECK(Value(file, "tq_tasks_finished_total", {{"state", "failed"}}) == 1);
  struct stat st {};
  REQUIRE(stat(textfile.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0644);
  CHECK(access((textfile + ".tmp").c_str(), F_OK) != 0);

  // The summary and --json.
  const RunResult human = Tq(d, {"stats"});
  REQUIRE(human.exit_code == 0);
  CHECK(human.out.rfind("QUEUE", 0) == 0);
  CHECK(human.out.find(": 3 submitted, ") != std::string::npos);
  const RunResult json = Tq(d, {"--json", "stats"});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["submitted"]["submit"] == 3);
  CHECK(j["started"].get<std::string>().back() == 'Z');
}

TEST_CASE("metrics_textfile that cannot be written is a warning, and tqd goes on") {
  TestDaemon d;
  TQ_LOG_ON_FAILURE(d);
  WriteFile(d.dir() + "/tqd.toml", "jobs_dir = " + Quoted(d.jobs_dir()) +
                                       "\nmetrics_interval = \"1s\"\nmetrics_textfile = " +
                                       Quoted(d.dir() + "/no/such/dir/tq.prom") + "\n");
  d.Restart();
  REQUIRE(WaitFor(
      [&] { return d.Log().find("metrics_textfile: cannot create") != std::string::npos; }));
  const std::string id = Submit(d, {"--", "true"});
  CHECK(Tq(d, {"wait", id}).exit_code == 0);
}
