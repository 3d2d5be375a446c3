// tq logs: print a task's captured output (-f follows it until the task ends), or the outputs of
// the tasks ids or filters name, each under a header line; with neither, the caller's latest
// task's.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <unordered_set>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/latest_task.h"
#include "cli/render.h"
#include "cli/selector_flags.h"
#include "core/proto/wire_bytes.h"

namespace tq {

namespace {
// How often `logs -f` asks for more while a task runs and printed nothing new.
constexpr int kFollowPollMs = 200;

// Which output a logs request asks for, as --json names it.
const char* StreamName(const LogsRequest& req) {
  return req.merged ? "merged" : req.stderr_stream ? "stderr" : "stdout";
}

// Prints one chunk of a task's output: its bytes, or with --json one line
// {"id", "attempt", "stream", "offset", "data"} (data as the protocol carries bytes).
void PrintChunk(TaskId id, int attempt, const char* stream, int64_t offset,
                const nlohmann::json& data, const std::string& bytes, bool json) {
  if (bytes.empty()) return;
  if (json) {
    const nlohmann::json line{
        {"id", id}, {"attempt", attempt}, {"stream", stream}, {"offset", offset}, {"data", data}};
    std::printf("%s\n", line.dump().c_str());
  } else {
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
  }
  std::fflush(stdout);
}

// The line over a task's output when several are printed, as tail(1) heads each file's:
// "==> task 12 (failed, attempt 2): make test <==", "==> task 14 (running, attempt 1, stage
// gz): gzip db.sql <==".
std::string Header(const nlohmann::json& part) {
  const int attempt = part["attempt"].get<int>();
  const nlohmann::json stage = part.value("stage_name", nlohmann::json());
  return "==> task " + std::to_string(part["id"].get<TaskId>()) + " (" +
         part["state"].get<std::string>() + ", " +
         (attempt == 0 ? std::string("no attempt yet") : "attempt " + std::to_string(attempt)) +
         (stage.is_string() ? ", stage " + stage.get<std::string>() : "") +
         "): " + CommandLine(part) + " <==\n";
}

// Prints one task's output, following it with -f across its attempts and a daemon restart.
int PrintOneTask(const GlobalOptions& g, LogsRequest req, bool follow) {
  RealClock clock;
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  int attempt = -1;
  bool noted = false;  // that another host runs it
  Retries retries;
  for (;;) {
    auto r = client->Call(req);
    if (!r.ok() && follow && retries.After(r.status())) {
      if (r.status().code() != ErrorCode::kUnavailable) continue;  // the store's fault
      client = ConnectUntil(g.socket, clock.MonoNow() + kReconnectWindowMs);
      if (!client.ok()) return Fail(client.status());
      continue;
    }
    if (!r.ok()) return Fail(r.status());
    retries.Succeeded();
    const int now_attempt = (*r)["attempt"].get<int>();
    if (attempt >= 0 && now_attempt != attempt) {  // a new attempt: start over
      req.offset = 0;
      attempt = now_attempt;
      continue;
    }
    attempt = now_attempt;
    if (auto host = r->find("runs_on"); host != r->end() && host->is_string() && !noted) {
      // Another host runs it (SPEC 12): its output reaches this host when the attempt ends.
      std::fprintf(stderr,
                   "tq: task %lld runs on host %s; its output comes here when the attempt ends "
                   "(tq logs there shows it as it is written)\n",
                   static_cast<long long>(req.id), host->get<std::string>().c_str());
      noted = true;
    }
    auto data = BytesFromJson((*r)["data"], "data");
    if (!data.ok()) return Fail(data.status());
    PrintChunk(req.id, attempt, StreamName(req), req.offset, (*r)["data"], *data, g.json);
    req.offset = (*r)["offset"].get<int64_t>();
    if ((*r)["eof"].get<bool>()) return 0;
    if (data->empty()) {
      if (!follow) return 0;
      SleepMs(kFollowPollMs);
    }
  }
}

// Prints the output of each task `req.select` names, in turn, each under its header; a task
// that cannot be read is said on stderr and the rest still come (exit 4 then, as cat(1) does).
int PrintSelectedTasks(const GlobalOptions& g, LogsRequest req) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  std::vector<TaskId> ids;
  std::unordered_set<TaskId> seen;
  for (TaskId id : req.select.ids)  // an id given twice is printed once
    if (seen.insert(id).second) ids.push_back(id);
  req.select.ids = ids;
  TaskId headed = 0;  // the task whose header was printed last
  int status = 0;
  for (;;) {
    auto r = client->Call(req);
    if (!r.ok()) return Fail(r.status());
    if (r->contains("selected")) {
      ids = (*r)["selected"].get<std::vector<TaskId>>();
      if (ids.empty() && !g.json) std::fputs("tq: no task matches\n", stderr);
    }
    for (const auto& part : (*r)["parts"]) {
      const TaskId id = part["id"].get<TaskId>();
      if (part.contains("error")) {
        std::fflush(stdout);
        std::fprintf(stderr, "tq: %s\n", part["error"].get<std::string>().c_str());
        status = ExitCodeFor(ErrorCode::kNotFound);
        continue;
      }
      if (id != headed && !g.json) {
        std::printf("%s%s", headed == 0 ? "" : "\n", Header(part).c_str());
        headed = id;
      }
      auto data = BytesFromJson(part["data"], "data");
      if (!data.ok()) return Fail(data.status());
      PrintChunk(id, part["attempt"].get<int>(), StreamName(req), part["offset"].get<int64_t>(),
                 part["data"], *data, g.json);
    }
    std::fflush(stdout);
    if (!r->contains("next")) return status;
    // Again from where it stopped, with the ids from there on (resolved once, by the daemon).
    const TaskId next = (*r)["next"]["id"].get<TaskId>();
    req.offset = (*r)["next"]["offset"].get<int64_t>();
    req.select = TaskSelector{};
    req.select.ids.assign(std::find(ids.begin(), ids.end(), next), ids.end());
    if (req.select.ids.empty()) return status;
  }
}

// The latest attempt of task `id` that ran stage `stage` (SPEC 13), or why there is none.
Result<int> LatestAttemptOfStage(const GlobalOptions& g, TaskId id, const std::string& stage) {
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return client.status();
  auto r = client->Call(StatusRequest{.id = id});
  if (!r.ok()) return r.status();
  const nlohmann::json& task = (*r)["task"];
  std::string names;
  bool known = false;
  for (const auto& s : task.value("stages", nlohmann::json::array())) {
    names += (names.empty() ? "" : ", ") + s.value("name", "");
    known = known || s.value("name", "") == stage;
  }
  const std::string which = "stage: task " + std::to_string(id);
  if (!known)
    return Status(ErrorCode::kNotFound, "stage",
                  which + " has no stage " + ShellQuote(stage) +
                      (names.empty() ? " (it has no stages)" : " (its stages: " + names + ")"));
  int attempt = 0;
  for (const auto& a : task["attempt_log"])
    if (a.value("stage", "") == stage) attempt = a["number"].get<int>();
  if (attempt == 0)
    return Status(ErrorCode::kNotFound, "stage",
                  which + " has not run stage " + ShellQuote(stage) + " yet");
  return attempt;
}

}  // namespace

Command AddLogs(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand(
      "logs", "Print a task's output (stdout, --stderr or --merged), or several tasks' in turn");
  struct Flags {
    SelectorFlags select;
    int attempt = 0;
    std::string stage;
    bool follow = false, stderr_stream = false, merged = false;
  };
  auto f = std::make_shared<Flags>();
  f->select.AddTo(sub,
                  "tasks whose output to print (one, or several each under a header; none: your "
                  "latest task)",
                  "pending, running, succeeded, failed, cancelled, expired or all-finished");
  sub->add_flag("-f,--follow", f->follow, "keep printing output until the task ends");
  auto* err = sub->add_flag("--stderr", f->stderr_stream,
                            "print standard error instead of standard output");
  sub->add_flag("--merged", f->merged,
                "print standard output and standard error together, in the order written")
      ->excludes(err);
  auto* attempt =
      sub->add_option("--attempt", f->attempt, "this attempt (1 is the first; default: the latest)")
          ->check(DecimalCheck({1, std::numeric_limits<int>::max(), "an attempt number"}));
  sub->add_option("--stage", f->stage, "a task with stages: the latest attempt of stage NAME")
      ->option_text("NAME")
      ->excludes(attempt);
  return {sub, [f, &g]() {
            auto select = f->select.Selector(AnyState());
            if (!select.ok()) return Fail(select.status());
            if (!NeedsSome(*select).ok()) {  // no id, no filter: the latest task (as tsp -c)
              auto latest = LatestOwnTask(g.socket, "tq logs");
              if (!latest.ok()) return Fail(latest.status());
              select->ids = {*latest};
            }
            LogsRequest req;
            req.stderr_stream = f->stderr_stream;
            req.merged = f->merged;
            if (select->ids.size() == 1) {
              req.id = select->ids[0];
              req.attempt = f->attempt;
              if (!f->stage.empty()) {
                Result<int> of_stage = LatestAttemptOfStage(g, req.id, f->stage);
                if (!of_stage.ok()) return Fail(of_stage.status());
                req.attempt = *of_stage;
              }
              return PrintOneTask(g, req, f->follow);
            }
            const char* one_only = f->follow           ? "--follow"
                                   : f->attempt != 0   ? "--attempt"
                                   : !f->stage.empty() ? "--stage"
                                                       : nullptr;
            if (one_only != nullptr)
              return Fail(Status::Invalid(one_only,
                                          std::string(one_only) +
                                              ": goes with one task id, not with several tasks or "
                                              "filters"));
            req.select = std::move(*select);
            return PrintSelectedTasks(g, std::move(req));
          }};
}

}  // namespace tq
