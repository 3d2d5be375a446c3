// tq cancel: pending tasks end at once; running ones get TERM, then KILL after the grace.
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/reconnect.h"
#include "cli/render.h"
#include "cli/selector_flags.h"
#include "core/model/duration.h"
#include "core/model/quote.h"
#include "core/model/signal_names.h"

namespace tq {

namespace {

// What a person at a terminal is told while running tasks are given their grace period.
std::string StoppingLine(const nlohmann::json& frame) {
  const int64_t n = frame.value("stopping", int64_t{0});
  const std::string tasks = std::to_string(n) + (n == 1 ? " running task" : " running tasks");
  const std::string signal = frame.value("signal", std::string("TERM"));
  if (signal == "KILL") return "tq: waiting for " + tasks + " to exit after KILL\n";
  return "tq: waiting up to " + FormatDuration(frame.value("grace_ms", int64_t{0})) + " for " +
         tasks + " to exit after " + signal + " (then KILL)\n";
}

// Sends `req` and reads its answer, telling a person at a terminal what it waits for. When tqd
// goes away while tasks are in their grace (a restart), the cancel is sent again, once tqd is
// back, for the tasks tqd named: their stops are stored, and one that ended meanwhile is answered
// as it ended. A cancel by filters whose tasks were never named is not sent again: it could
// select other tasks.
Result<nlohmann::json> CancelAcrossRestarts(const std::string& socket, CancelRequest req) {
  RealClock clock;
  auto client = Client::Connect(socket);
  if (!client.ok()) return client.status();
  req.progress = true;  // the first frame names the tasks being stopped
  const bool terminal = isatty(STDERR_FILENO) == 1;
  bool told = false;
  Retries retries;
  for (;;) {
    Status sent = client->Send(req);
    Result<nlohmann::json> r = sent.ok() ? client->Read() : Result<nlohmann::json>(sent);
    while (r.ok() && r->contains("stopping")) {
      if (terminal && !told) std::fputs(StoppingLine(*r).c_str(), stderr);
      told = true;
      if (auto ids = r->find("ids"); ids != r->end()) {
        req.select = TaskSelector{};
        req.select.ids = ids->get<std::vector<TaskId>>();
      }
      r = client->Read();
    }
    if (r.ok()) {
      const Status answer = ResponseStatus(*r);
      // A store failing for a while selected and stopped nothing: the same cancel again.
      if (answer.ok() || !retries.After(answer)) return r;
      continue;
    }
    if (r.status().code() != ErrorCode::kUnavailable || req.select.ByFilter() ||
        !retries.After(r.status()))
      return r;
    client = ConnectUntil(socket, clock.MonoNow() + kReconnectWindowMs);
    if (!client.ok()) return client.status();
  }
}

}  // namespace

Command AddCancel(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("cancel", "Cancel tasks; returns once they have ended");
  struct Flags {
    SelectorFlags select;
    std::string signal;
    bool kill = false;
  };
  auto f = std::make_shared<Flags>();
  f->select.AddTo(sub, "task ids", "pending or running (default: both)");
  sub->add_option("--signal", f->signal,
                  "send this signal first (INT, HUP, ...; default TERM), KILL after the grace");
  sub->add_flag("--kill", f->kill, "KILL at once, without the grace");
  return {sub, [f, &g]() {
            CancelRequest req;
            if (!f->signal.empty()) {
              const std::optional<int> sig = SignalNamed(f->signal);
              if (!sig)
                return Fail(Status::Invalid("--signal", "--signal: " + Quote(f->signal) +
                                                            " is not one of " + SignalNames()));
              if (f->kill && *sig != SIGKILL)
                return Fail(Status::Invalid("--signal", "give --signal or --kill, not both"));
              req.kill = *sig == SIGKILL;
              if (!req.kill) req.signal = *sig;
            }
            req.kill = req.kill || f->kill;
            auto select = f->select.SomeSelector(CancellableStates(), "cancel");
            if (!select.ok()) return Fail(select.status());
            req.select = std::move(*select);
            auto r = CancelAcrossRestarts(g.socket, req);
            if (!r.ok()) return Fail(r.status());
            if (Status st = ResponseStatus(*r); !st.ok()) return Fail(st);
            if ((*r)["tasks"].empty() && !g.json) std::fputs("tq: no task matches\n", stderr);
            for (const auto& t : (*r)["tasks"]) {
              if (g.json) {
                std::printf("%s\n", t.dump().c_str());
              } else {
                std::printf("%lld %s\n", t["id"].get<long long>(), DescribeEnd(t).c_str());
              }
            }
            return 0;
          }};
}

}  // namespace tq
