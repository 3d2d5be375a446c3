// tq wait: block until tasks are terminal (with no id and no filter, the caller's latest task);
// the exit code says how the first failure ended.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/latest_task.h"
#include "cli/progress_meter.h"
#include "cli/render.h"
#include "cli/selector_flags.h"

namespace tq {

namespace {

// Waits for the tasks `select` names, reconnecting across daemon restarts: fills `wanted` with
// their ids (in argument order, or oldest first as the daemon resolved the filters) and `ended`
// by id. With a progress bar on a terminal, cleared before it returns.
Status WaitAll(const GlobalOptions& g, const TaskSelector& select, std::vector<TaskId>& wanted,
               std::map<TaskId, nlohmann::json>& ended) {
  RealClock clock;
  std::vector<TaskId> distinct;
  std::optional<ProgressMeter> meter;  // once the tasks are known
  auto known = [&](const std::vector<TaskId>& ids) {
    wanted = ids;
    distinct = ids;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    // A progress bar on stderr only for people: several tasks, a terminal, no --json.
    const bool progress = distinct.size() > 1 && !g.json && isatty(STDERR_FILENO);
    meter.emplace(progress ? stderr : nullptr, StderrColumns, distinct.size(), clock.MonoNow());
  };
  if (!select.ByFilter()) known(select.ids);
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return client.status();
  Retries retries;
  for (;;) {
    WaitRequest req{select};
    if (meter) {  // after a reconnect, only the ids still running
      req.select = TaskSelector{};
      for (TaskId id : distinct)
        if (!ended.count(id)) req.select.ids.push_back(id);
      if (req.select.ids.empty()) return Status::Ok();
    }
    Status st = client->Send(req);
    while (st.ok()) {
      // While nothing arrives, the bar is redrawn when due (its clock and deferred counts).
      for (int ms;
           meter && (ms = meter->MsUntilDue(clock.MonoNow())) >= 0 && !client->Readable(ms);)
        meter->Tick(clock.MonoNow());
      auto frame = client->Read();
      if (!frame.ok()) {
        st = frame.status();
        break;
      }
      if (Status err = ResponseStatus(*frame); !err.ok()) {
        st = err;  // a store's transient fault is asked again below
        break;
      }
      retries.Succeeded();
      if (frame->value("end", false)) return Status::Ok();
      if (frame->contains("selected")) {
        known((*frame)["selected"].get<std::vector<TaskId>>());
        continue;
      }
      const auto& task = (*frame)["task"];
      const bool first = ended.emplace(task["id"].get<TaskId>(), task).second;
      if (first && meter) meter->Ended(WaitExitCode(task) != 0, clock.MonoNow());
    }
    if (!retries.After(st)) return st;
    if (st.code() != ErrorCode::kUnavailable) continue;  // the connection still serves
    client = ConnectUntil(g.socket, clock.MonoNow() + kReconnectWindowMs);
    if (!client.ok()) return client.status();
  }
}

}  // namespace

Command AddWait(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("wait", "Wait until tasks have ended; exit with the result");
  sub->footer(
      "Exit status: 0 when every task succeeded; otherwise that of the first task in argument "
      "order (with filters: the oldest) that did not: its own exit code, 128+N when signal N "
      "ended it, 124 when it timed out, 126 or 127 when its command could not be run (not "
      "executable, not found), 125 when it never ran (cancelled while pending) or tq itself "
      "failed; 4 for an unknown id, 6 when the daemon cannot be reached.");
  auto f = std::make_shared<SelectorFlags>();
  f->AddTo(sub, "task ids (none: your latest task)", "only tasks in these states (default: any)");
  return {sub, [f, &g]() {
            auto select = f->Selector(AnyState());
            if (!select.ok()) return Fail(select.status());
            if (!NeedsSome(*select).ok()) {  // no id, no filter: the latest task (as tsp -w)
              auto latest = LatestOwnTask(g.socket, "tq wait");
              if (!latest.ok()) return Fail(latest.status());
              select->ids = {*latest};
            }
            std::vector<TaskId> wanted;
            std::map<TaskId, nlohmann::json> ended;
            Status st = WaitAll(g, *select, wanted, ended);
            if (!st.ok()) {
              const int rc = Fail(st);
              return rc == 1 ? 125 : rc;
            }
            if (wanted.empty() && !g.json) std::fputs("tq: no task matches\n", stderr);
            int rc = 0;
            for (TaskId id : wanted) {
              const auto& t = ended[id];
              if (g.json) std::printf("%s\n", t.dump().c_str());
              const int code = WaitExitCode(t);
              if (code != 0) {
                std::fprintf(stderr, "tq: task %lld %s\n", static_cast<long long>(id),
                             DescribeEnd(t).c_str());
                if (rc == 0) rc = code;
              }
            }
            return rc;
          }};
}

}  // namespace tq
