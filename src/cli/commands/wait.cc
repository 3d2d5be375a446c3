// tq wait: block until tasks are terminal; the exit code says how the first failure ended.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/progress_meter.h"
#include "cli/render.h"

namespace tq {

namespace {

// Waits for every id, reconnecting across daemon restarts; fills `ended` by id. With a
// progress bar on a terminal, cleared before it returns.
Status WaitAll(const GlobalOptions& g, const std::vector<TaskId>& ids,
               std::map<TaskId, nlohmann::json>& ended) {
  std::vector<TaskId> distinct = ids;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  RealClock clock;
  // A progress bar on stderr only for people: several tasks, a terminal, no --json.
  const bool progress = distinct.size() > 1 && !g.json && isatty(STDERR_FILENO);
  ProgressMeter meter(progress ? stderr : nullptr, StderrColumns, distinct.size(), clock.MonoNow());
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return client.status();
  for (;;) {
    std::vector<TaskId> remaining;
    for (TaskId id : distinct)
      if (!ended.count(id)) remaining.push_back(id);
    if (remaining.empty()) return Status::Ok();
    Status st = client->Send(WaitRequest{remaining});
    while (st.ok()) {
      // While nothing arrives, the bar is redrawn when due (its clock and deferred counts).
      for (int ms; (ms = meter.MsUntilDue(clock.MonoNow())) >= 0 && !client->Readable(ms);)
        meter.Tick(clock.MonoNow());
      auto frame = client->Read();
      if (!frame.ok()) {
        st = frame.status();
        break;
      }
      if (Status err = ResponseStatus(*frame); !err.ok()) return err;
      if (frame->value("end", false)) return Status::Ok();
      const auto& task = (*frame)["task"];
      const bool first = ended.emplace(task["id"].get<TaskId>(), task).second;
      if (first) meter.Ended(WaitExitCode(task) != 0, clock.MonoNow());
    }
    if (st.code() != ErrorCode::kUnavailable) return st;
    client = ConnectUntil(g.socket, clock.MonoNow() + kReconnectWindowMs);
    if (!client.ok()) return client.status();
  }
}

}  // namespace

Command AddWait(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("wait", "Wait until tasks have ended; exit with the result");
  sub->footer(
      "Exit status: 0 when every task succeeded; otherwise that of the first task in argument "
      "order that did not: its own exit code, 128+N when signal N ended it, 124 when it timed "
      "out, 126 or 127 when its command could not be run (not executable, not found), 125 when "
      "it never ran (cancelled while pending) or tq itself failed; 4 for an unknown id, 6 when "
      "the daemon cannot be reached.");
  auto ids = std::make_shared<std::vector<long long>>();
  sub->add_option("ids", *ids, "task ids")->required();
  return {sub, [ids, &g]() {
            const std::vector<TaskId> wanted(ids->begin(), ids->end());
            std::map<TaskId, nlohmann::json> ended;
            Status st = WaitAll(g, wanted, ended);
            if (!st.ok()) {
              const int rc = Fail(st);
              return rc == 1 ? 125 : rc;
            }
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
