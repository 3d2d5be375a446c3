// tq submit: create a task and print its id.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/render.h"
#include "core/duration.h"
#include "core/wall_time.h"

extern char** environ;

namespace tq {

namespace {

struct SubmitFlags {
  std::vector<std::string> positional;
  std::string shell, queue = "default", delay, at, timeout;
  std::vector<std::string> labels, after;
  int priority = kDefaultPriority;
  bool read_stdin = false, clean_env = false;
};

std::string CurrentDir() {
  std::string buf(4096, '\0');
  while (getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE) return "/";
    buf.resize(buf.size() * 2);
  }
  return buf.c_str();
}

// Splits "12,13" (and repeated flags) into ids; refuses anything else.
Status ParseIds(const std::vector<std::string>& items, std::vector<TaskId>& out) {
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ',')) {
      char* end = nullptr;
      const long long v = std::strtoll(part.c_str(), &end, 10);
      if (part.empty() || *end != '\0' || v <= 0)
        return Status::Invalid("--after", "--after: \"" + part + "\" is not a task id");
      out.push_back(v);
    }
  }
  return Status::Ok();
}

Result<TaskSpec> BuildSpec(const SubmitFlags& f, const GlobalOptions& g) {
  TaskSpec spec;
  spec.argv = g.has_command ? g.command : f.positional;
  if (!f.shell.empty()) spec.shell = f.shell;
  if (spec.argv.empty() && !spec.shell)
    return Status::Invalid("command",
                           "a command is required: tq submit [OPTIONS] -- COMMAND "
                           "[ARG...], or --shell STRING");
  if (!spec.argv.empty() && spec.shell)
    return Status::Invalid("--shell",
                           "--shell: give either a command after -- or --shell, not both");
  spec.queue = f.queue;
  spec.priority = f.priority;
  spec.labels = f.labels;
  spec.clean_env = f.clean_env;
  spec.cwd = CurrentDir();
  if (!f.clean_env)
    for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  const WallMs now = RealClock().WallNow();
  if (!f.delay.empty() && !f.at.empty())
    return Status::Invalid("--at", "--at and --delay exclude each other");
  if (!f.delay.empty()) {
    auto d = ParseDuration(f.delay, "--delay");
    if (!d.ok()) return d.status();
    spec.not_before = now + *d;
  }
  if (!f.at.empty()) {
    auto t = ParseAt(f.at, now, "--at");
    if (!t.ok()) return t.status();
    spec.not_before = *t;
  }
  if (!f.timeout.empty()) {
    auto d = ParseDuration(f.timeout, "--timeout");
    if (!d.ok()) return d.status();
    spec.timeout_ms = *d;
  }
  Status st = ParseIds(f.after, spec.after);
  if (!st.ok()) return st;
  if (f.read_stdin) {
    spec.stdin_data = std::string(std::istreambuf_iterator<char>(std::cin), {});
  }
  return spec;
}

}  // namespace

Command AddSubmit(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("submit", "Submit a task; prints its id");
  auto f = std::make_shared<SubmitFlags>();
  sub->add_option("command", f->positional, "the command and its arguments (after --)");
  sub->add_option("--shell", f->shell, "run STRING with /bin/sh -c instead of a command");
  sub->add_option("-q,--queue", f->queue, "queue name (default: default)");
  sub->add_option("-p,--priority", f->priority, "1 (highest) .. 5 (lowest), default 3")
      ->check(CLI::Range(kMinPriority, kMaxPriority));
  sub->add_flag("--stdin", f->read_stdin, "send standard input to the task as its stdin");
  sub->add_option("-l,--label", f->labels, "a label for filtering (repeatable)");
  sub->add_option("--delay", f->delay, "start no earlier than DURATION from now (90s, 1h30m)");
  sub->add_option("--at", f->at, "start no earlier than TIME (2026-12-01T03:00, 14:30, @EPOCH)");
  sub->add_option("--after", f->after, "wait until these tasks succeeded (ID[,ID...])");
  sub->add_option("--timeout", f->timeout, "running-time limit (DURATION)");
  sub->add_flag("--clean-env", f->clean_env, "run with cron's environment, not yours");
  return {sub, [f, &g]() {
            auto spec = BuildSpec(*f, g);
            if (!spec.ok()) return Fail(spec.status());
            auto client = Client::Connect(g.socket);
            if (!client.ok()) return Fail(client.status());
            auto r = client->Call(SubmitRequest{std::move(*spec)});
            if (!r.ok()) return Fail(r.status());
            if (g.json) {
              std::printf("%s\n", nlohmann::json{{"id", (*r)["id"]}}.dump().c_str());
            } else {
              std::printf("%lld\n", (*r)["id"].get<long long>());
            }
            return 0;
          }};
}

}  // namespace tq
