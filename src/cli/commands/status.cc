// tq status: one task with every attempt.
#include <cstdio>
#include <map>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/state_colour.h"
#include "core/model/clock.h"
#include "core/model/duration.h"
#include "core/model/output_cut.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {
// An attempt's peak memory: its cgroup's (every process) when it had one, else the largest
// resident set of one process, marked "rss".
std::string PeakMemory(const nlohmann::json& a) {
  const int64_t peak = a.value("memory_peak_bytes", int64_t{0});
  if (peak > 0) return std::to_string(peak >> 20) + " MiB";
  return std::to_string(a.value("max_rss_kb", int64_t{0}) >> 10) + " MiB rss";
}

// "gpu 2, licence 1" for a request, "gpu 0,2" for the units an attempt held.
std::string UnitsText(const nlohmann::json& units) {
  std::string out;
  if (!units.is_object()) return out;
  for (const auto& [name, value] : units.items()) {
    std::string v = value.dump();
    if (value.is_array()) {
      v.clear();
      for (const auto& unit : value) v += (v.empty() ? "" : ",") + unit.get<std::string>();
    }
    out += (out.empty() ? "" : ", ") + name + " " + v;
  }
  return out;
}

// The "host" of an attempt or a shard: the host it ran on, "-" when none.
std::string HostOf(const nlohmann::json& j) {
  const nlohmann::json host = j.value("host", nlohmann::json());
  return host.is_string() ? host.get<std::string>() : "-";
}

// Prints the stages of a task with stages (SPEC 13): each one's state, attempts and command.
void PrintStages(const nlohmann::json& stages) {
  std::printf("\n");
  std::vector<std::vector<std::string>> rows = {
      {"#", "STAGE", "STATE", "ATTEMPTS", "EXIT", "COMMAND"}};
  for (const auto& s : stages) {
    std::string attempts = s["attempts"].dump();
    if (s.value("retries", 0) > 0) attempts += " (retries " + s["retries"].dump() + ")";
    rows.push_back({std::to_string(s.value("index", 0) + 1), s.value("name", ""),
                    PaintState(s.value("state", ""), StdoutColour(false)), attempts,
                    s["exit_code"].is_number() ? s["exit_code"].dump() : "-", CommandLine(s)});
  }
  PrintTable(rows);
}

// Prints the task's fields, then its stages and attempts; states in colour on a terminal.
void PrintTask(const nlohmann::json& t) {
  std::string state = t.value("state", "?");
  if (t["reason"].is_string()) state += " (" + t["reason"].get<std::string>() + ")";
  std::vector<std::vector<std::string>> head = {
      {"id", std::to_string(t["id"].get<long long>())},
      {"state", PaintState(state, StdoutColour(false))},
      {"command", CommandLine(t)},
      {"queue", t.value("queue", "") + ", priority " + std::to_string(t.value("priority", 0))},
      {"owner", t["owner"].value("name", "")},
      {"created", LocalTime(t["created"])},
  };
  if (auto cwd = BytesFromJson(t.value("cwd", nlohmann::json()), "cwd"); cwd.ok() && !cwd->empty())
    head.push_back({"directory", *cwd});
  head.push_back({"timeout", t["timeout_ms"].is_number()
                                 ? FormatDuration(t["timeout_ms"].get<int64_t>())
                                 : std::string("none")});
  // The host of its latest attempt (SPEC 12): where it runs or last ran.
  if (const auto& log = t["attempt_log"]; !log.empty() && log.back()["host"].is_string())
    head.push_back({"host", log.back()["host"].get<std::string>()});
  // Where it must run, when placed on one host (SPEC 12).
  if (auto on = t.find("run_on"); on != t.end() && on->is_string())
    head.push_back({"runs on", on->get<std::string>() + " only"});
  if (t["state"] == "running") {
    const auto& log = t["attempt_log"];
    if (!log.empty() && log.back().value("pid", 0) > 0)
      head.push_back({"pid", std::to_string(log.back()["pid"].get<long long>())});
    const std::string elapsed = RunningFor(t, RealClock().WallNow());
    if (!elapsed.empty()) head.push_back({"running for", elapsed});
    if (t.value("held", false))
      head.push_back({"next stage", "held: starts after tq release " + t["id"].dump()});
  }
  if (t["state"] == "pending" && t.contains("waiting")) {
    const std::string note = WaitingNote(t);
    head.push_back({"waits for", note == "ready" ? "a free slot (ready)" : note});
  }
  const int retries = t["retry"].value("retries", 0);
  const int started = t.value("attempts", 0);
  if (t["state"] == "pending" && started > 0 && t["not_before"].is_string()) {
    head.push_back({"next", "retry " + std::to_string(started) + "/" + std::to_string(retries) +
                                " at " + LocalTime(t["not_before"])});
  } else if (t["not_before"].is_string()) {
    head.push_back({"not before", LocalTime(t["not_before"])});
  }
  if (retries > 0)
    head.push_back({"retries", std::to_string(retries) + ", " +
                                   t["retry"]["backoff"].get<std::string>() + " backoff"});
  if (t["key"].is_string())
    head.push_back({"key", t["key"].get<std::string>() + " v" + t["version"].dump()});
  if (!t["after"].empty()) head.push_back({"after", t["after"].dump()});
  if (t.contains("shard") && t["shard"].is_object())
    head.push_back({"shard", "index " + t["shard"]["index"].dump() + " of " +
                                 t["shard"]["total"].dump() + ", group " +
                                 t["shard"]["group"].dump()});
  if (t.contains("job") && t["job"].is_string())
    head.push_back({"job", t["job"].get<std::string>()});
  if (!t["labels"].empty()) {
    std::string labels;
    for (const auto& l : t["labels"]) labels += (labels.empty() ? "" : ", ") + l.get<std::string>();
    head.push_back({"labels", labels});
  }
  if (const std::string use = UnitsText(t.value("use", nlohmann::json())); !use.empty())
    head.push_back({"uses", use});
  if (t["finished"].is_string()) head.push_back({"finished", LocalTime(t["finished"])});
  // Until the task ends, its exit is its last stage's or attempt's (in the tables below).
  const bool ended = t["finished"].is_string();
  if (ended && t["exit_code"].is_number()) head.push_back({"exit code", t["exit_code"].dump()});
  if (ended && t["signal"].is_number()) head.push_back({"signal", t["signal"].dump()});
  for (const char* hook : {"on_failure", "on_success", "on_finish"})
    if (auto command = BytesFromJson(t.value(hook, nlohmann::json()), hook);
        command.ok() && !command->empty())
      head.push_back({hook, *command});
  if (t.value("mailto", nlohmann::json()).is_string())
    head.push_back({"mailto", t["mailto"].get<std::string>() + " (on " +
                                  t.value("mail_on", std::string("failure")) + ")"});
  PrintTable(head);
  const bool staged = t.contains("stages");
  if (staged) PrintStages(t["stages"]);
  const auto& attempts = t["attempt_log"];
  if (attempts.empty()) return;
  std::printf("\n");
  std::vector<std::vector<std::string>> rows = {
      {"#", "HOST", "STARTED", "ENDED", "RESULT", "TIME", "CPU", "MEMORY", "REASON"}};
  if (staged) rows[0].insert(rows[0].begin() + 1, "STAGE");
  for (const auto& a : attempts) {
    std::string result = "-";
    if (a["exit_code"].is_number()) result = "exit " + a["exit_code"].dump();
    if (a["signal"].is_number()) result = "signal " + a["signal"].dump();
    const int64_t cpu = a.value("user_cpu_ms", 0) + a.value("system_cpu_ms", 0);
    rows.push_back({a["number"].dump(), HostOf(a), LocalTime(a["started"]), LocalTime(a["ended"]),
                    result, ShortDuration(a["duration_ms"]), ShortDuration(cpu), PeakMemory(a),
                    a["reason"].is_string() ? a["reason"].get<std::string>() : "running"});
    if (staged) rows.back().insert(rows.back().begin() + 1, a.value("stage", ""));
  }
  PrintTable(rows);
  for (const auto& a : attempts)
    if (const std::string units = UnitsText(a.value("units", nlohmann::json())); !units.empty())
      std::printf("attempt %s held %s\n", a["number"].dump().c_str(), units.c_str());
  for (const auto& a : attempts)
    for (const auto& cut : a.value("output_cut", nlohmann::json::array()))
      std::printf("attempt %s: output: %s\n", a["number"].dump().c_str(),
                  OutputCutSummary({cut.value("stream", "") == "stderr",
                                    cut.value("at", int64_t{0}), cut.value("reason", "")})
                      .c_str());
  for (const auto& a : attempts)
    if (a["detail"].is_string())
      std::printf("attempt %s: %s: %s\n", a["number"].dump().c_str(),
                  a["reason"].is_string() ? a["reason"].get<std::string>().c_str() : "running",
                  a["detail"].get<std::string>().c_str());
}

// Prints a group of shards (SPEC 12): its state and how many shards are in each, then each shard.
void PrintGroup(const nlohmann::json& group) {
  const auto& shards = group["shards"];
  std::map<std::string, int> counts;
  for (const auto& shard : shards) ++counts[shard.value("state", "?")];
  std::string tally;
  for (const auto& [state, n] : counts)
    tally += (tally.empty() ? "" : ", ") + std::to_string(n) + " " + state;
  PrintTable({{"group", group["id"].dump()},
              {"state", PaintState(group.value("state", "?"), StdoutColour(false))},
              {"shards", group["total"].dump() + " (" + tally + ")"}});
  std::printf("\n");
  std::vector<std::vector<std::string>> rows = {
      {"SHARD", "ID", "STATE", "HOST", "ATTEMPTS", "EXIT"}};
  for (const auto& shard : shards) {
    std::string state = shard.value("state", "?");
    if (shard["reason"].is_string()) state += " (" + shard["reason"].get<std::string>() + ")";
    rows.push_back({shard["index"].dump(), shard["id"].dump(),
                    PaintState(state, StdoutColour(false)), HostOf(shard), shard["attempts"].dump(),
                    shard["exit_code"].is_number() ? shard["exit_code"].dump() : "-"});
  }
  PrintTable(rows);
}

}  // namespace

Command AddStatus(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("status", "Show a task and its attempts");
  auto id = std::make_shared<long long>(0);
  sub->add_option("id", *id, "task id")->required()->check(DecimalCheck(TaskIdRange()));
  return {sub, [id, &g]() {
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(StatusRequest{.id = *id});
            if (!r.ok()) return Fail(r.status());
            const bool group = r->contains("group");
            if (g.json) {
              std::printf("%s\n", (*r)[group ? "group" : "task"].dump().c_str());
            } else if (group) {
              PrintGroup((*r)["group"]);
            } else {
              PrintTask((*r)["task"]);
            }
            return 0;
          }};
}

}  // namespace tq
