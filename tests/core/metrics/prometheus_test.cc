// The metrics snapshot: its wire form both ways, and its Prometheus text exposition.
#include "core/metrics/prometheus.h"

#include <doctest/doctest.h>

namespace tq {

namespace {

MetricsSnapshot Example() {
  MetricsSnapshot s;
  s.started = 1764000000500;
  s.tasks = {{"default", "pending", 3}, {"default", "succeeded", 7}, {"cron", "failed", 1}};
  s.running = {{"default", 2}};
  s.store_bytes = 4096;
  s.counters.submitted = {{"submit", 12}, {"job", 2}};
  s.counters.finished = {{"succeeded", 7}, {"failed", 1}};
  s.counters.picks = {{1, 4}, {3, 5}};
  s.counters.cron_firings = {{"run", 2}, {"overlap", 1}};
  s.counters.cron_misfires = 6;
  s.counters.queue_wait.Observe(0.02);
  s.counters.run_time.Observe(90);
  s.counters.commit.Observe(0.0003);
  s.units = {{"gpu", {3, 1}}};
  s.hosts = {{"a", {"live", 2, 4, 1500}}, {"b", {"fenced", 0, 4, 90000}}};
  return s;
}

bool Has(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

}  // namespace

TEST_CASE("a metrics snapshot survives its wire form") {
  const MetricsSnapshot s = Example();
  auto back = MetricsFromJson(MetricsToJson(s));
  REQUIRE(back.ok());
  CHECK(MetricsToJson(*back) == MetricsToJson(s));
  CHECK(back->counters.picks.at(3) == 5);
  CHECK(back->counters.run_time.count == 1);
  CHECK(back->units.at("gpu").in_use == 3);
  CHECK(back->units.at("gpu").free == 1);
  CHECK(back->hosts.at("b").state == "fenced");
  CHECK(back->hosts.at("a").heartbeat_age_ms == 1500);
}

TEST_CASE("a snapshot of a daemon that counted submits as one number reads them as submits") {
  nlohmann::json j = MetricsToJson(Example());
  j["submitted"] = 9;
  auto back = MetricsFromJson(j);
  REQUIRE(back.ok());
  CHECK(back->counters.submitted == std::map<std::string, uint64_t>{{"submit", 9}});
  j.erase("units");  // a daemon of the version before resource units
  j.erase("hosts");  // and before hosts
  back = MetricsFromJson(j);
  REQUIRE(back.ok());
  CHECK(back->units.empty());
  CHECK(back->hosts.empty());
}

TEST_CASE("a snapshot the client cannot read is an error, not a crash") {
  nlohmann::json j = MetricsToJson(Example());
  SUBCASE("a missing field") {
    j.erase("submitted");
  }
  SUBCASE("a wrong type") {
    j["tasks"] = "many";
  }
  SUBCASE("a histogram with too few buckets") {
    j["run_seconds"]["buckets"] = {1, 2};
  }
  SUBCASE("a priority that is no number") {
    j["picks"] = {{"high", 1}};
  }
  auto back = MetricsFromJson(j);
  CHECK_FALSE(back.ok());
  CHECK(back.status().message().find("stats:") == 0);
}

TEST_CASE("the Prometheus exposition has every family, with zeros where nothing happened") {
  const std::string text = RenderPrometheus(Example());
  CHECK(Has(text, "# TYPE tq_tasks gauge"));
  CHECK(Has(text, "tq_tasks{queue=\"default\",state=\"pending\"} 3"));
  CHECK(Has(text, "tq_tasks{queue=\"default\",state=\"running\"} 0"));
  CHECK(Has(text, "tq_tasks{queue=\"cron\",state=\"failed\"} 1"));
  CHECK(Has(text, "tq_running{queue=\"default\"} 2"));
  CHECK(Has(text, "tq_running{queue=\"cron\"} 0"));
  CHECK(Has(text, "tq_tasks_submitted_total{source=\"submit\"} 12"));
  CHECK(Has(text, "tq_tasks_submitted_total{source=\"job\"} 2"));
  CHECK(Has(text, "tq_tasks_submitted_total{source=\"retry\"} 0"));
  CHECK(Has(text, "tq_tasks_finished_total{state=\"cancelled\"} 0"));
  CHECK(Has(text, "tq_chooser_picks_total{priority=\"3\"} 5"));
  CHECK(Has(text, "tq_cron_firings_total{result=\"overlap\"} 1"));
  CHECK(Has(text, "tq_cron_misfires_total 6"));
  CHECK(Has(text, "# TYPE tq_run_seconds histogram"));
  CHECK(Has(text, "tq_run_seconds_bucket{le=\"60\"} 0"));
  CHECK(Has(text, "tq_run_seconds_bucket{le=\"120\"} 1"));
  CHECK(Has(text, "tq_run_seconds_bucket{le=\"+Inf\"} 1"));
  CHECK(Has(text, "tq_run_seconds_sum 90"));
  CHECK(Has(text, "tq_run_seconds_count 1"));
  CHECK(Has(text, "tq_store_commit_seconds_bucket{le=\"0.0005\"} 1"));
  CHECK(Has(text, "tq_store_bytes 4096"));
  CHECK(Has(text, "# TYPE tq_resource_units gauge"));
  CHECK(Has(text, "tq_resource_units{resource=\"gpu\",state=\"in_use\"} 3"));
  CHECK(Has(text, "tq_resource_units{resource=\"gpu\",state=\"free\"} 1"));
  CHECK(Has(text, "# TYPE tq_host_state gauge"));
  CHECK(Has(text, "tq_host_state{host=\"a\",state=\"live\"} 1"));
  CHECK(Has(text, "tq_host_state{host=\"a\",state=\"fenced\"} 0"));
  CHECK(Has(text, "tq_host_state{host=\"b\",state=\"fenced\"} 1"));
  CHECK(Has(text, "tq_host_running{host=\"a\"} 2"));
  CHECK(Has(text, "tq_host_max_running{host=\"b\"} 4"));
  CHECK(Has(text, "tq_host_heartbeat_age_seconds{host=\"a\"} 1.5"));
  CHECK(Has(text, "tq_start_time_seconds 1764000000.5"));
  // Buckets are cumulative: never fewer than the bucket before.
  CHECK(Has(text, "tq_queue_wait_seconds_bucket{le=\"0.025\"} 1"));
  CHECK(Has(text, "tq_queue_wait_seconds_bucket{le=\"86400\"} 1"));
  CHECK(text.back() == '\n');
}

TEST_CASE("numbers are plain decimals, whatever their size") {
  MetricsSnapshot s;
  s.counters.commit.Observe(1e-300);
  s.store_bytes = 1;
  const std::string text = RenderPrometheus(s);
  CHECK(text.find("NaN") == std::string::npos);
  CHECK(text.find("tq_store_commit_seconds_sum 0.000") != std::string::npos);
  CHECK(Has(text, "tq_store_commit_seconds_bucket{le=\"0.0001\"} 1"));
}

TEST_CASE("label values are escaped") {
  CHECK(PrometheusLabel("plain") == "\"plain\"");
  CHECK(PrometheusLabel("a\"b") == "\"a\\\"b\"");
  CHECK(PrometheusLabel("a\\b") == "\"a\\\\b\"");
  CHECK(PrometheusLabel("a\nb") == "\"a\\nb\"");
}

}  // namespace tq
