#include "core/metrics/prometheus.h"

#include <cmath>
#include <set>

#include <charconv>

#include "core/model/task.h"

namespace tq {

namespace {

constexpr TaskState kStates[] = {TaskState::kPending, TaskState::kRunning,   TaskState::kSucceeded,
                                 TaskState::kFailed,  TaskState::kCancelled, TaskState::kExpired};

// Writes metric families: HELP and TYPE once per family, then its samples.
class Exposition {
 public:
  void Family(const std::string& name, const std::string& type, const std::string& help) {
    out_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
  }
  void Sample(const std::string& name, const std::string& labels, double value) {
    out_ += name;
    if (!labels.empty()) out_ += "{" + labels + "}";
    out_ += " " + Number(value) + "\n";
  }
  void Histogram(const std::string& name, const std::string& help, const tq::Histogram& h) {
    Family(name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.bounds.size(); ++i) {
      cumulative += i < h.buckets.size() ? h.buckets[i] : 0;
      Sample(name + "_bucket", "le=\"" + Number(h.bounds[i]) + "\"",
             static_cast<double>(cumulative));
    }
    Sample(name + "_bucket", "le=\"+Inf\"", static_cast<double>(h.count));
    Sample(name + "_sum", "", h.sum);
    Sample(name + "_count", "", static_cast<double>(h.count));
  }
  std::string Take() { return std::move(out_); }

 private:
  static std::string Number(double v) {
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    if (std::isnan(v)) return "NaN";
    char buf[512];  // fixed notation of the smallest double needs about 330
    // Plain decimals as people write bounds ("0.0005", not "5e-04"), exponents only for huge.
    const auto format = std::fabs(v) < 1e15 ? std::chars_format::fixed : std::chars_format::general;
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, format);
    return ec == std::errc() ? std::string(buf, end) : "NaN";
  }
  std::string out_;
};

}  // namespace

std::string PrometheusLabel(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

std::string RenderPrometheus(const MetricsSnapshot& s) {
  const DaemonCounters& c = s.counters;
  Exposition e;
  e.Family("tq_tasks", "gauge", "Tasks the store holds, by queue and state.");
  std::set<std::string> queues;
  for (const QueueStateCount& t : s.tasks) queues.insert(t.queue);
  for (const std::string& q : queues)
    for (TaskState state : kStates) {
      int64_t n = 0;
      for (const QueueStateCount& t : s.tasks)
        if (t.queue == q && t.state == StateName(state)) n += t.count;
      e.Sample("tq_tasks", "queue=" + PrometheusLabel(q) + ",state=\"" + StateName(state) + "\"",
               static_cast<double>(n));
    }
  e.Family("tq_running", "gauge", "Attempts running now, by queue.");
  for (const auto& [q, n] : s.running) queues.insert(q);
  for (const std::string& q : queues) {
    auto it = s.running.find(q);
    e.Sample("tq_running", "queue=" + PrometheusLabel(q),
             it == s.running.end() ? 0 : static_cast<double>(it->second));
  }
  e.Family("tq_tasks_submitted_total", "counter",
           "Tasks created (or made pending again by tq retry) since tqd started, by source: "
           "submit, job (a firing or tq jobs run), retry.");
  for (const char* source : {"submit", "job", "retry"}) {
    auto it = c.submitted.find(source);
    e.Sample("tq_tasks_submitted_total", std::string("source=\"") + source + "\"",
             it == c.submitted.end() ? 0 : static_cast<double>(it->second));
  }
  e.Family("tq_tasks_finished_total", "counter",
           "Tasks that reached a terminal state since tqd started, by that state.");
  for (const char* state : {"succeeded", "failed", "cancelled", "expired"}) {
    auto it = c.finished.find(state);
    e.Sample("tq_tasks_finished_total", std::string("state=\"") + state + "\"",
             it == c.finished.end() ? 0 : static_cast<double>(it->second));
  }
  e.Family("tq_stages_finished_total", "counter",
           "Stages of tasks with stages that finished since tqd started, by how.");
  for (const char* state : {"succeeded", "failed", "cancelled"}) {
    auto it = c.stages_finished.find(state);
    e.Sample("tq_stages_finished_total", std::string("state=\"") + state + "\"",
             it == c.stages_finished.end() ? 0 : static_cast<double>(it->second));
  }
  e.Histogram("tq_queue_wait_seconds",
              "Time from a task being due (submitted, delayed or retried) to its start.",
              c.queue_wait);
  e.Histogram("tq_run_seconds", "Duration of each attempt.", c.run_time);
  e.Family("tq_chooser_picks_total", "counter",
           "Tasks the chooser started since tqd started, by their priority.");
  for (const auto& [priority, n] : c.picks)
    e.Sample("tq_chooser_picks_total", "priority=\"" + std::to_string(priority) + "\"",
             static_cast<double>(n));
  e.Family("tq_cron_firings_total", "counter",
           "Job firings since tqd started: run, no run because of overlap, or late (overtaken "
           "within the misfire grace by a later firing that ran).");
  for (const char* result : {"run", "overlap", "late"}) {
    auto it = c.cron_firings.find(result);
    e.Sample("tq_cron_firings_total", std::string("result=\"") + result + "\"",
             it == c.cron_firings.end() ? 0 : static_cast<double>(it->second));
  }
  e.Family("tq_cron_misfires_total", "counter",
           "Missed job firings (daemon down, clock jumped) that the misfire policy did not run.");
  e.Sample("tq_cron_misfires_total", "", static_cast<double>(c.cron_misfires));
  e.Family("tq_hooks_total", "counter",
           "Hooks and mails run since tqd started, by result: succeeded, failed, or dropped "
           "(too many waiting).");
  for (const char* result : {"succeeded", "failed", "dropped"}) {
    auto it = c.hooks.find(result);
    e.Sample("tq_hooks_total", std::string("result=\"") + result + "\"",
             it == c.hooks.end() ? 0 : static_cast<double>(it->second));
  }
  e.Family("tq_job_overdue", "gauge",
           "1 while a job with expect_success_within has not succeeded for that long, else 0.");
  for (const auto& [job, overdue] : s.jobs_overdue)
    e.Sample("tq_job_overdue", "job=" + PrometheusLabel(job), overdue ? 1 : 0);
  e.Family("tq_resource_units", "gauge",
           "Units of each resource of [resources], by state: in_use (held by a running task) or "
           "free.");
  for (const auto& [resource, n] : s.units) {
    e.Sample("tq_resource_units", "resource=" + PrometheusLabel(resource) + ",state=\"in_use\"",
             static_cast<double>(n.in_use));
    e.Sample("tq_resource_units", "resource=" + PrometheusLabel(resource) + ",state=\"free\"",
             static_cast<double>(n.free));
  }
  e.Family("tq_host_state", "gauge",
           "1 for each host of the store in the state it is in, else 0: live, silent (no "
           "heartbeat for host_lease), stopped (its tqd stopped cleanly) or fenced (its running "
           "tasks were passed on).");
  for (const auto& [name, h] : s.hosts)
    for (const char* state : {"live", "silent", "stopped", "fenced"})
      e.Sample("tq_host_state", "host=" + PrometheusLabel(name) + ",state=\"" + state + "\"",
               h.state == state ? 1 : 0);
  e.Family("tq_host_running", "gauge", "Tasks running on each host of the store.");
  for (const auto& [name, h] : s.hosts)
    e.Sample("tq_host_running", "host=" + PrometheusLabel(name), static_cast<double>(h.running));
  e.Family("tq_host_max_running", "gauge", "Each host's max_running.");
  for (const auto& [name, h] : s.hosts)
    e.Sample("tq_host_max_running", "host=" + PrometheusLabel(name),
             static_cast<double>(h.max_running));
  e.Family("tq_host_heartbeat_age_seconds", "gauge",
           "How long ago each host of the store last beat, on this host's clock.");
  for (const auto& [name, h] : s.hosts)
    e.Sample("tq_host_heartbeat_age_seconds", "host=" + PrometheusLabel(name),
             static_cast<double>(h.heartbeat_age_ms) / 1000.0);
  e.Family("tq_job_overdue_alerts_total", "counter",
           "Alerts raised by jobs' dead man's switches since tqd started.");
  e.Sample("tq_job_overdue_alerts_total", "", static_cast<double>(c.overdue_alerts));
  e.Histogram("tq_store_commit_seconds",
              "Duration of each store commit, its fsync included (durability = \"full\").",
              c.commit);
  e.Family("tq_store_bytes", "gauge", "Size of the store's database files, WAL included.");
  e.Sample("tq_store_bytes", "", static_cast<double>(s.store_bytes));
  e.Family("tq_start_time_seconds", "gauge", "When this tqd started, in seconds since the epoch.");
  e.Sample("tq_start_time_seconds", "", static_cast<double>(s.started) / 1000.0);
  return e.Take();
}

}  // namespace tq
