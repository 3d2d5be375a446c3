// tq stats: the daemon's counts and counters, as a summary or (--prometheus) in Prometheus's
// text format, the same text tqd writes to metrics_textfile (SPEC 11).
#include <cstdio>
#include <map>
#include <memory>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/metrics/metrics.h"
#include "core/metrics/prometheus.h"
#include "core/model/wall_time.h"

namespace tq {

namespace {

constexpr const char* kStates[] = {"pending", "running",   "succeeded",
                                   "failed",  "cancelled", "expired"};

// A duration in seconds as people read it: "850us", "12ms", "1.5s", "3m", "2h".
std::string Seconds(double s) {
  char buf[32];
  if (s < 0.001) {
    std::snprintf(buf, sizeof buf, "%.0fus", s * 1e6);
  } else if (s < 1) {
    std::snprintf(buf, sizeof buf, "%.0fms", s * 1e3);
  } else if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%.0fm", s / 60);
  } else {
    std::snprintf(buf, sizeof buf, "%.1fh", s / 3600);
  }
  return buf;
}

// "p50 12ms  p90 40ms  p99 1.2s  (120)", or "none yet".
std::string Quantiles(const Histogram& h) {
  if (h.count == 0) return "none yet";
  return "p50 " + Seconds(h.Quantile(0.5)) + "  p90 " + Seconds(h.Quantile(0.9)) + "  p99 " +
         Seconds(h.Quantile(0.99)) + "  (" + std::to_string(h.count) + ")";
}

uint64_t Get(const std::map<std::string, uint64_t>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? 0 : it->second;
}

void PrintSummary(const MetricsSnapshot& s) {
  // Tasks per queue and state, with a total row.
  std::map<std::string, std::map<std::string, int64_t>> by_queue;
  for (const QueueStateCount& c : s.tasks) by_queue[c.queue][c.state] += c.count;
  std::vector<std::vector<std::string>> rows = {
      {"QUEUE", "PENDING", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "EXPIRED"}};
  std::map<std::string, int64_t> total;
  for (const auto& [queue, states] : by_queue) {
    std::vector<std::string> row = {queue};
    for (const char* state : kStates) {
      auto it = states.find(state);
      const int64_t n = it == states.end() ? 0 : it->second;
      total[state] += n;
      row.push_back(std::to_string(n));
    }
    rows.push_back(row);
  }
  if (by_queue.size() != 1) {
    std::vector<std::string> row = {"(all)"};
    for (const char* state : kStates) row.push_back(std::to_string(total[state]));
    rows.push_back(row);
  }
  PrintTable(rows);

  const DaemonCounters& c = s.counters;
  std::printf(
      "\nsince %s: %llu submitted, %llu by jobs, %llu retried; finished %llu succeeded, %llu "
      "failed, %llu cancelled, %llu expired\n",
      LocalTime(FormatRfc3339Utc(s.started)).c_str(),
      static_cast<unsigned long long>(Get(c.submitted, "submit")),
      static_cast<unsigned long long>(Get(c.submitted, "job")),
      static_cast<unsigned long long>(Get(c.submitted, "retry")),
      static_cast<unsigned long long>(Get(c.finished, "succeeded")),
      static_cast<unsigned long long>(Get(c.finished, "failed")),
      static_cast<unsigned long long>(Get(c.finished, "cancelled")),
      static_cast<unsigned long long>(Get(c.finished, "expired")));
  std::printf("queue wait   %s\n", Quantiles(c.queue_wait).c_str());
  std::printf("run time     %s\n", Quantiles(c.run_time).c_str());
  std::string picks;
  for (const auto& [priority, n] : c.picks)
    picks += "  " + std::to_string(priority) + ": " + std::to_string(n);
  std::printf("picks        by priority%s\n", picks.empty() ? " none yet" : picks.c_str());
  std::printf("cron         %llu firing(s) run, %llu not run for overlap, %llu missed\n",
              static_cast<unsigned long long>(Get(c.cron_firings, "run")),
              static_cast<unsigned long long>(Get(c.cron_firings, "overlap")),
              static_cast<unsigned long long>(c.cron_misfires));
  std::printf("hooks        %llu succeeded, %llu failed, %llu dropped\n",
              static_cast<unsigned long long>(Get(c.hooks, "succeeded")),
              static_cast<unsigned long long>(Get(c.hooks, "failed")),
              static_cast<unsigned long long>(Get(c.hooks, "dropped")));
  std::string overdue;
  for (const auto& [job, late] : s.jobs_overdue)
    if (late) overdue += " " + job;
  std::printf("overdue      %s (%llu alert(s))\n", overdue.empty() ? "no job" : overdue.c_str() + 1,
              static_cast<unsigned long long>(c.overdue_alerts));
  std::string units;
  for (const auto& [resource, n] : s.units)
    units += "  " + resource + ": " + std::to_string(n.in_use) + " in use, " +
             std::to_string(n.free) + " free";
  if (!units.empty()) std::printf("units      %s\n", units.c_str());
  std::printf("store        %s; commits %s\n", HumanBytes(s.store_bytes).c_str(),
              Quantiles(c.commit).c_str());
}

}  // namespace

Command AddStats(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("stats", "Show the daemon's counts and counters");
  auto prometheus = std::make_shared<bool>(false);
  sub->add_flag("--prometheus", *prometheus,
                "print them in Prometheus's text format (as metrics_textfile holds them)");
  return {sub, [&g, prometheus]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(StatsRequest{});
            if (!r.ok()) return Fail(r.status());
            auto snapshot = MetricsFromJson((*r)["stats"]);
            if (!snapshot.ok()) return Fail(snapshot.status());
            if (*prometheus) {
              std::fputs(RenderPrometheus(*snapshot).c_str(), stdout);
            } else if (g.json) {
              nlohmann::json out = MetricsToJson(*snapshot);
              out["started"] = FormatRfc3339Utc(snapshot->started);  // times in RFC 3339 UTC
              std::printf("%s\n", out.dump().c_str());
            } else {
              PrintSummary(*snapshot);
            }
            return 0;
          }};
}

}  // namespace tq
