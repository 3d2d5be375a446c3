// tq update: change a pending task before it starts (its priority, queue, labels, start time,
// timeout or retries).
#include <cstdio>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "cli/start_time.h"
#include "core/model/duration.h"

namespace tq {

namespace {

// The flags of `tq update`, as given.
struct UpdateFlags {
  long long id = 0;
  std::optional<int> priority, retries;
  std::string queue, delay, at, timeout;
  std::vector<std::string> labels;
  bool no_labels = false;
};

// The changes the flags ask for; a bad value is refused naming its flag.
Result<TaskChanges> ChangesOf(const UpdateFlags& f) {
  TaskChanges c;
  c.priority = f.priority;
  c.retries = f.retries;
  if (!f.queue.empty()) c.queue = f.queue;
  if (!f.labels.empty() || f.no_labels) c.labels = f.labels;
  auto start = StartTimeFlags(f.delay, f.at, RealClock().WallNow());
  if (!start.ok()) return start.status();
  c.not_before = *start;
  if (!f.timeout.empty()) {
    auto d = ParseDuration(f.timeout, "--timeout");
    if (!d.ok()) return d.status();
    c.timeout_ms = *d;
  }
  if (c.Empty())
    return Status::Invalid("changes",
                           "nothing to change: give --priority, --queue, --label, --no-labels, "
                           "--delay, --at, --timeout or --retries");
  return c;
}

}  // namespace

Command AddUpdate(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("update", "Change a pending task before it starts");
  auto f = std::make_shared<UpdateFlags>();
  sub->add_option("id", f->id, "the pending task")->required()->check(DecimalCheck(TaskIdRange()));
  sub->add_option("-p,--priority", f->priority, "1 (highest) .. 5 (lowest)")
      ->check(DecimalCheck({kMinPriority, kMaxPriority, "a priority"}));
  sub->add_option("-q,--queue", f->queue, "move it to this queue");
  auto* label =
      sub->add_option("-l,--label", f->labels, "its labels, in place of the old (repeatable)");
  sub->add_flag("--no-labels", f->no_labels, "remove its labels")->excludes(label);
  auto* delay = sub->add_option("--delay", f->delay, "start no earlier than DURATION from now");
  sub->add_option("--at", f->at, "start no earlier than TIME")->excludes(delay);
  sub->add_option("--timeout", f->timeout, "running-time limit (DURATION; 0: none)");
  sub->add_option("--retries", f->retries, "attempts allowed after the first failed one")
      ->check(DecimalCheck({0, 1000, "a retry count"}));
  return {sub, [f, &g]() {
            auto changes = ChangesOf(*f);
            if (!changes.ok()) return Fail(changes.status());
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(UpdateRequest{f->id, *changes});
            if (!r.ok()) return Fail(r.status());
            if (g.json)
              std::printf("%s\n", (*r)["task"].dump().c_str());
            else
              std::printf("%lld updated\n", f->id);
            if (r->value("new_queue", false)) SayQueueIsNew(*changes->queue);
            return 0;
          }};
}

}  // namespace tq
