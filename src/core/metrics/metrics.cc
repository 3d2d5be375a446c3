#include "core/metrics/metrics.h"

namespace tq {

using nlohmann::json;

namespace {

json HistogramToJson(const Histogram& h) {
  return {{"bounds", h.bounds}, {"buckets", h.buckets}, {"sum", h.sum}, {"count", h.count}};
}

Histogram HistogramFromJson(const json& j) {
  Histogram h(j.at("bounds").get<std::vector<double>>());
  h.buckets = j.at("buckets").get<std::vector<uint64_t>>();
  if (h.buckets.size() != h.bounds.size() + 1)
    throw std::invalid_argument("a histogram needs one bucket more than its bounds");
  h.sum = j.at("sum").get<double>();
  h.count = j.at("count").get<uint64_t>();
  return h;
}

// A map with integer keys travels as an object with decimal keys.
json IntKeys(const std::map<int, uint64_t>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[std::to_string(k)] = v;
  return out;
}

}  // namespace

json MetricsToJson(const MetricsSnapshot& s) {
  json tasks = json::array();
  for (const QueueStateCount& c : s.tasks)
    tasks.push_back({{"queue", c.queue}, {"state", c.state}, {"count", c.count}});
  json units = json::object();
  for (const auto& [resource, n] : s.units)
    units[resource] = {{"in_use", n.in_use}, {"free", n.free}};
  json hosts = json::object();
  for (const auto& [name, h] : s.hosts)
    hosts[name] = {{"state", h.state},
                   {"running", h.running},
                   {"max_running", h.max_running},
                   {"heartbeat_age_ms", h.heartbeat_age_ms}};
  json history = json::array();
  for (const MinuteSample& m : s.history)
    history.push_back({{"at", m.at},
                       {"succeeded", m.succeeded},
                       {"failed", m.failed},
                       {"wait_sum_s", m.wait_sum_s},
                       {"wait_count", m.wait_count},
                       {"running", m.running}});
  const DaemonCounters& c = s.counters;
  return {{"started", s.started},
          {"tasks", tasks},
          {"running", s.running},
          {"store_bytes", s.store_bytes},
          {"submitted", c.submitted},
          {"finished", c.finished},
          {"stages_finished", c.stages_finished},
          {"picks", IntKeys(c.picks)},
          {"cron_firings", c.cron_firings},
          {"cron_misfires", c.cron_misfires},
          {"hooks", c.hooks},
          {"overdue_alerts", c.overdue_alerts},
          {"jobs_overdue", s.jobs_overdue},
          {"units", units},
          {"hosts", hosts},
          {"queue_wait_seconds", HistogramToJson(c.queue_wait)},
          {"run_seconds", HistogramToJson(c.run_time)},
          {"commit_seconds", HistogramToJson(c.commit)},
          {"history", history}};
}

MinuteSample SampleOf(const MetricsSnapshot& s, WallMs at) {
  const auto finished = [&](const char* state) {
    const auto it = s.counters.finished.find(state);
    return it == s.counters.finished.end() ? uint64_t{0} : it->second;
  };
  int64_t running = 0;
  for (const auto& [queue, n] : s.running) running += n;
  return {at,
          finished("succeeded"),
          finished("failed"),
          s.counters.queue_wait.sum,
          s.counters.queue_wait.count,
          running};
}

Result<MetricsSnapshot> MetricsFromJson(const json& j) {
  try {
    MetricsSnapshot s;
    s.started = j.at("started").get<WallMs>();
    for (const json& t : j.at("tasks"))
      s.tasks.push_back({t.at("queue").get<std::string>(), t.at("state").get<std::string>(),
                         t.at("count").get<int64_t>()});
    s.running = j.at("running").get<std::map<std::string, int64_t>>();
    s.store_bytes = j.at("store_bytes").get<int64_t>();
    DaemonCounters& c = s.counters;
    // A number (every source together) from a daemon of the version before sources.
    const json& submitted = j.at("submitted");
    if (submitted.is_number())
      c.submitted["submit"] = submitted.get<uint64_t>();
    else
      c.submitted = submitted.get<std::map<std::string, uint64_t>>();
    c.finished = j.at("finished").get<std::map<std::string, uint64_t>>();
    // Absent from a daemon of the version before stages.
    c.stages_finished = j.value("stages_finished", std::map<std::string, uint64_t>{});
    for (const auto& [k, v] : j.at("picks").items()) c.picks[std::stoi(k)] = v.get<uint64_t>();
    c.cron_firings = j.at("cron_firings").get<std::map<std::string, uint64_t>>();
    c.cron_misfires = j.at("cron_misfires").get<uint64_t>();
    // Absent from a daemon of the version before notifications.
    c.hooks = j.value("hooks", std::map<std::string, uint64_t>{});
    c.overdue_alerts = j.value("overdue_alerts", uint64_t{0});
    s.jobs_overdue = j.value("jobs_overdue", std::map<std::string, bool>{});
    // Absent from a daemon of the version before resource units.
    const json units = j.value("units", json::object());
    for (const auto& [resource, n] : units.items())
      s.units[resource] = {n.at("in_use").get<int64_t>(), n.at("free").get<int64_t>()};
    // Absent from a daemon of the version before hosts.
    const json hosts = j.value("hosts", json::object());
    for (const auto& [name, h] : hosts.items())
      s.hosts[name] = {h.at("state").get<std::string>(), h.at("running").get<int64_t>(),
                       h.at("max_running").get<int64_t>(), h.at("heartbeat_age_ms").get<int64_t>()};
    c.queue_wait = HistogramFromJson(j.at("queue_wait_seconds"));
    c.run_time = HistogramFromJson(j.at("run_seconds"));
    c.commit = HistogramFromJson(j.at("commit_seconds"));
    // Absent from a daemon of the version before the history.
    for (const json& m : j.value("history", json::array()))
      s.history.push_back({m.at("at").get<WallMs>(), m.at("succeeded").get<uint64_t>(),
                           m.at("failed").get<uint64_t>(), m.at("wait_sum_s").get<double>(),
                           m.at("wait_count").get<uint64_t>(), m.at("running").get<int64_t>()});
    return s;
  } catch (const std::exception& e) {
    return Status::Invalid(
        "stats", std::string("stats: the daemon's answer is not understood: ") + e.what());
  }
}

}  // namespace tq
