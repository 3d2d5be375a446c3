// tq submit: create a task and print its id.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>

#include "cli/arg_checks.h"
#include "cli/client.h"
#include "cli/commands/commands.h"
#include "cli/commands/submit_batch.h"
#include "cli/commands/submit_stages.h"
#include "cli/decimal.h"
#include "cli/render.h"
#include "cli/start_time.h"
#include "core/model/duration.h"
#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/proto/submit_spec.h"

extern char** environ;

namespace tq {

namespace {

struct SubmitFlags {
  std::vector<CommandFlag> command_flags;  // --stage and --shell, in their order
  std::string stages_file;                 // --stages FILE
  std::string queue = "default", delay, at, timeout, pending_ttl, key, host;
  std::vector<std::string> labels, after, use;
  int priority = kDefaultPriority;
  int64_t version = 0;
  bool read_stdin = false, clean_env = false, supersede_running = false;
  bool keep_background = false;
  std::optional<int> retries;
  std::string backoff, backoff_base, backoff_max, retry_on_exit, no_retry_on_exit;
  bool no_jitter = false;
  bool batch = false, batch_nul = false, batch_json = false;
  std::optional<std::string> on_failure, on_success, on_finish;
  std::string mailto, mail_on;
  std::optional<int64_t> shards;  // --shards N: a group of N tasks
};

// The --use flags, each NAME=COUNT or NAME (one unit), as a request; refuses a bad name or count
// and a resource named twice. Whether the daemon has the resource is the daemon's to say.
Result<UnitRequest> ParseUse(const std::vector<std::string>& flags) {
  UnitRequest request;
  for (const std::string& text : flags) {
    const size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    if (!ValidResourceName(name))
      return Status::Invalid(
          "--use", "--use: " + Quote(name) + " is not a resource name (" + kResourceNameHelp + ")");
    int count = 1;
    if (eq != std::string::npos) {
      const Result<long long> n =
          ParseDecimal(text.substr(eq + 1), {1, kMaxUnitsPerResource, ""}, "--use");
      if (!n.ok())
        return Status::Invalid(
            "--use", "--use: " + Quote(text) + " is not NAME=COUNT with a count from 1 to " +
                         std::to_string(kMaxUnitsPerResource) + " without leading zeros");
      count = static_cast<int>(*n);
    }
    if (!request.emplace(name, count).second)
      return Status::Invalid("--use", "--use: " + name + " is named twice (name it once)");
  }
  return request;
}

// The directory tq runs in, where the task will run; refused when it no longer exists (a task
// must not quietly run in / instead).
Result<std::string> CurrentDir() {
  std::string buf(4096, '\0');
  while (getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE)
      return Status::Invalid("cwd", std::string("cwd: the current directory cannot be named (") +
                                        strerror(errno) +
                                        "): was it removed? The task runs where tq submit runs: "
                                        "cd to a directory that exists");
    buf.resize(buf.size() * 2);
  }
  return std::string(buf.c_str());
}

// Splits "75,76" into exit codes 0..255; refuses anything else, as ParseDecimal does.
Result<std::vector<int>> ParseExitCodes(const std::string& text, const std::string& flag) {
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    const Result<long long> code = ParseDecimal(part, {0, 255, "an exit code"}, flag);
    if (!code.ok()) return code.status();
    out.push_back(static_cast<int>(*code));
  }
  return out;
}

// Reads the retry flags into overrides; unset flags stay unset (the queue's defaults apply).
Status ReadRetryFlags(const SubmitFlags& f, RetryOverrides& o) {
  o.retries = f.retries;
  if (!f.backoff.empty()) o.backoff = BackoffFromName(f.backoff);
  if (f.no_jitter) o.jitter = false;
  for (auto [flag, text, out] : {std::tuple{"--backoff-base", &f.backoff_base, &o.base_ms},
                                 std::tuple{"--backoff-max", &f.backoff_max, &o.max_ms}}) {
    if (text->empty()) continue;
    auto d = ParseDuration(*text, flag);
    if (!d.ok()) return d.status();
    *out = *d;
  }
  for (auto [flag, text, out] :
       {std::tuple{"--retry-on-exit", &f.retry_on_exit, &o.retry_on_exit},
        std::tuple{"--no-retry-on-exit", &f.no_retry_on_exit, &o.no_retry_on_exit}}) {
    if (text->empty()) continue;
    auto codes = ParseExitCodes(*text, flag);
    if (!codes.ok()) return codes.status();
    *out = *codes;
  }
  return Status::Ok();
}

// Splits "12,13" (and repeated flags) into ids; refuses anything else, as ParseDecimal does.
Status ParseIds(const std::vector<std::string>& items, std::vector<TaskId>& out) {
  for (const auto& item : items) {
    std::stringstream ss(item);
    std::string part;
    while (std::getline(ss, part, ',')) {
      const Result<long long> id = ParseDecimal(part, TaskIdRange(), "--after");
      if (!id.ok()) return id.status();
      out.push_back(*id);
    }
  }
  return Status::Ok();
}

// Standard input for --stdin, refused before anything is sent when it passes the limit (read no
// further than one byte past it).
Result<std::string> ReadStdinPayload(std::istream& in) {
  std::string data(kMaxStdinBytes + 1, '\0');
  in.read(data.data(), static_cast<std::streamsize>(data.size()));
  data.resize(static_cast<size_t>(in.gcount()));
  if (data.size() > kMaxStdinBytes)
    return Status(ErrorCode::kLimit, "--stdin",
                  "--stdin: standard input holds more than the limit of " +
                      std::to_string(kMaxStdinBytes) + " bytes (8 MiB)");
  return data;
}

// The task's command into `spec`: its own (words, or --shell), or its stages (--stage, or
// --stages FILE); refuses what does not go together, naming the flags.
Status ReadCommand(const SubmitFlags& f, const GlobalOptions& g, TaskSpec& spec) {
  const bool stage_flags = std::any_of(f.command_flags.begin(), f.command_flags.end(),
                                       [](const CommandFlag& c) { return c.stage; });
  if (stage_flags && !f.stages_file.empty())
    return Status::Invalid("--stages",
                           "--stages: give the stages either in FILE or with --stage, not both");
  auto command = ReadSubmitCommand(f.command_flags, g.command);
  if (!command.ok()) return command.status();
  spec.argv = std::move(command->argv);
  spec.shell = std::move(command->shell);
  spec.stages = std::move(command->stages);
  if (f.batch && (!spec.argv.empty() || spec.shell))
    return Status::Invalid("--batch",
                           "--batch: the commands come from standard input; give no "
                           "command after -- and no --shell");
  if (f.batch && (!spec.stages.empty() || !f.stages_file.empty()))
    return Status::Invalid("--batch",
                           "--batch: the tasks come from standard input; give no --stage and no "
                           "--stages (a --json-lines line may carry \"stages\")");
  if (!f.stages_file.empty()) {
    if (!spec.argv.empty() || spec.shell)
      return Status::Invalid("--stages",
                             "--stages: a task with stages runs only its stages' commands; give "
                             "either --stages FILE or a command (after -- or --shell), not both");
    if (f.read_stdin && f.stages_file == "-")
      return Status::Invalid("--stdin", "--stdin: standard input carries the stages (--stages -)");
    auto stages = ReadStagesFile(f.stages_file);
    if (!stages.ok()) return stages.status();
    spec.stages = std::move(*stages);
  }
  return Status::Ok();
}

// The request the flags describe; in batch mode without a command (each task brings its own).
Result<SubmitRequest> BuildRequest(const SubmitFlags& f, const GlobalOptions& g) {
  SubmitRequest request;
  TaskSpec& spec = request.spec;
  if (Status st = ReadCommand(f, g, spec); !st.ok()) return st;
  if ((f.batch_nul || f.batch_json) && !f.batch)
    return Status::Invalid("--batch", "-0 and --json-lines go with --batch");
  if (f.batch_nul && f.batch_json)
    return Status::Invalid("--batch", "--batch: -0 and --json-lines exclude each other");
  if (f.batch && f.read_stdin)
    return Status::Invalid("--stdin", "--stdin: standard input carries the batch");
  if (!f.batch && spec.argv.empty() && !spec.shell && spec.stages.empty())
    return Status::Invalid("command",
                           "a command is required: tq submit [OPTIONS] [--] COMMAND "
                           "[ARG...], --shell STRING, or stages (--stage NAME -- COMMAND "
                           "[ARG...] for each, or --stages FILE)");
  if (!spec.argv.empty() && spec.shell)
    return Status::Invalid("--shell", "--shell: give either a command or --shell, not both");
  spec.queue = f.queue;
  spec.run_on = f.host;
  spec.priority = f.priority;
  spec.labels = f.labels;
  auto use = ParseUse(f.use);
  if (!use.ok()) return use.status();
  spec.use = std::move(*use);
  spec.clean_env = f.clean_env;
  spec.keep_background = f.keep_background;
  spec.notify.on_failure = f.on_failure;
  spec.notify.on_success = f.on_success;
  spec.notify.on_finish = f.on_finish;
  spec.notify.mailto = f.mailto;
  if (!f.mail_on.empty()) spec.notify.mail_on = *MailOnFromName(f.mail_on);
  auto cwd = CurrentDir();
  if (!cwd.ok()) return cwd.status();
  spec.cwd = std::move(*cwd);
  if (!f.clean_env)
    for (char** e = environ; *e; ++e) spec.env.emplace_back(*e);
  auto start = StartTimeFlags(f.delay, f.at, RealClock().WallNow());
  if (!start.ok()) return start.status();
  if (*start) spec.not_before = **start;
  if (!f.timeout.empty()) {
    auto d = ParseDuration(f.timeout, "--timeout");
    if (!d.ok()) return d.status();
    spec.timeout_ms = *d;
  }
  if (!f.pending_ttl.empty()) {
    auto d = ParseDuration(f.pending_ttl, "--pending-ttl");
    if (!d.ok()) return d.status();
    spec.pending_ttl_ms = *d;
  }
  if (!f.key.empty()) spec.key = f.key;
  if (f.version != 0 && !spec.key) return Status::Invalid("--version", "--version goes with --key");
  if (f.supersede_running && !spec.key)
    return Status::Invalid("--supersede-running", "--supersede-running goes with --key");
  spec.version = f.version;
  request.supersede_running = f.supersede_running;
  if (f.shards) {
    if (f.batch)
      return Status::Invalid("--shards",
                             "--shards: a batch cannot carry sharded work; submit it on its own");
    if (spec.key) return Status::Invalid("--shards", "--shards: sharded work cannot carry --key");
    request.shards = static_cast<int>(*f.shards);
  }
  Status st = ParseIds(f.after, spec.after);
  if (st.ok()) st = ReadRetryFlags(f, request.retry);
  if (!st.ok()) return st;
  if (f.read_stdin) {
    auto data = ReadStdinPayload(std::cin);
    if (!data.ok()) return data.status();
    spec.stdin_data = std::move(*data);
  }
  return request;
}

// Sends one submit and prints its id (a group's, for --shards); a refusal by a newer version prints
// that id and exits 3.
int SubmitOne(SubmitRequest request, const GlobalOptions& g) {
  // What tqd would refuse is refused here, before the connection: nothing is sent.
  if (Status st = CheckSubmit(request); !st.ok()) return Fail(st);
  auto client = Client::Connect(g.socket);
  if (!client.ok()) return Fail(client.status());
  if (Status st = client->Send(request); !st.ok()) return Fail(st);
  auto r = client->Read();
  if (!r.ok()) return Fail(r.status());
  if (Status st = ResponseStatus(*r); !st.ok()) {
    if (st.code() == ErrorCode::kSuperseded && r->contains("id"))
      std::printf("%lld\n", (*r)["id"].get<long long>());
    return Fail(st);
  }
  if (g.json) {
    nlohmann::json out{{"id", (*r)["id"]}};
    if (r->contains("shards")) out["shards"] = (*r)["shards"];
    std::printf("%s\n", out.dump().c_str());
  } else {
    std::printf("%lld\n", (*r)["id"].get<long long>());
  }
  if (r->value("new_queue", false)) SayQueueIsNew(request.spec.queue);
  return 0;
}

}  // namespace

Command AddSubmit(CLI::App& app, const GlobalOptions& g) {
  auto* sub = app.add_subcommand("submit", "Submit a task; prints its id");
  sub->footer(
      "The command starts at the first argument that is not an option (or after --): tq submit "
      "[OPTIONS] [--] PROGRAM [ARG...]. Each option takes one value; repeat it for more. A task "
      "with stages: tq submit [OPTIONS] --stage NAME -- PROGRAM [ARG...] --stage NAME -- ...");
  auto f = std::make_shared<SubmitFlags>();
  // --shell and --stage are kept in the order given: a --shell after a --stage is that stage's.
  auto in_order = [f](bool stage) {
    return [f, stage](const std::string& value) { f->command_flags.push_back({stage, value}); };
  };
  sub->add_option_function<std::string>(
         "--shell", in_order(false),
         "run STRING with /bin/sh -c instead of a command (after --stage NAME: that stage's)")
      ->trigger_on_parse();
  sub->add_option_function<std::string>(
         "--stage", in_order(true),
         "start stage NAME; its command follows: -- COMMAND [ARG...] up to the next --stage, "
         "or --shell STRING (repeat for each stage)")
      ->trigger_on_parse();
  sub->add_option("--stages", f->stages_file,
                  "the stages from a TOML file of [[stages]] tables (- for standard input)");
  sub->add_option("-q,--queue", f->queue, "queue name (default: default)");
  sub->add_option("--host", f->host,
                  "run it on this host of a shared store (its queue's hosts must allow it)");
  sub->add_option("-p,--priority", f->priority, "1 (highest) .. 5 (lowest), default 3")
      ->check(DecimalCheck({kMinPriority, kMaxPriority, "a priority"}));
  sub->add_flag("--stdin", f->read_stdin, "send standard input to the task as its stdin");
  sub->add_option("-l,--label", f->labels, "a label for filtering (repeatable)");
  sub->add_option("--use", f->use,
                  "units of a resource of tqd.toml's [resources] each attempt holds: NAME=COUNT "
                  "or NAME for one (repeatable)");
  sub->add_option("--delay", f->delay, "start no earlier than DURATION from now (90s, 1h30m)");
  sub->add_option("--at", f->at,
                  "start no earlier than TIME (2026-12-01T03:00, 14:30, 14:30:15, @EPOCH)");
  sub->add_option("--after", f->after, "wait until these tasks succeeded (ID[,ID...])");
  sub->add_option("--timeout", f->timeout, "running-time limit (DURATION)");
  sub->add_flag("--clean-env", f->clean_env, "run with cron's environment, not yours");
  sub->add_flag("--keep-background", f->keep_background,
                "leave processes it starts in the background running when it ends");
  sub->add_option("--key", f->key, "idempotency key: one task per key and version");
  sub->add_option("--version", f->version, "version of the keyed request (default 0)")
      ->check(DecimalCheck(
          {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), "a version"}));
  sub->add_flag("--supersede-running", f->supersede_running,
                "also cancel a running older version of the key");
  sub->add_option("--retries", f->retries, "attempts allowed after the first failed one")
      ->check(DecimalCheck({0, 1000, "a retry count"}));
  sub->add_option("--backoff", f->backoff, "fixed, exponential or progressive")
      ->check(CLI::IsMember({"fixed", "exponential", "progressive"}));
  sub->add_option("--backoff-base", f->backoff_base, "first (or fixed) delay (DURATION)");
  sub->add_option("--backoff-max", f->backoff_max, "longest delay (DURATION)");
  sub->add_flag("--no-jitter", f->no_jitter, "do not spread delays by +-20%");
  sub->add_option("--retry-on-exit", f->retry_on_exit, "only these exit codes retry (75,76)");
  sub->add_option("--no-retry-on-exit", f->no_retry_on_exit, "these exit codes never retry");
  sub->add_option("--pending-ttl", f->pending_ttl,
                  "fail if not started within DURATION (0: never, the default)");
  sub->add_option("--on-failure", f->on_failure,
                  "run CMD (as you, with TQ_* set) once the task has finally failed");
  sub->add_option("--on-success", f->on_success, "run CMD when the task succeeded");
  sub->add_option("--on-finish", f->on_finish, "run CMD whenever the task ends");
  sub->add_option("--mailto", f->mailto, "mail the output of a failed run to ADDR[,ADDR...]");
  sub->add_option("--mail-on", f->mail_on,
                  "failure (default), always, or output (whenever the run printed something)")
      ->check(CLI::IsMember({"failure", "always", "output"}));
  sub->add_option("--shards", f->shards,
                  "N tasks, each with TQ_SHARD_INDEX (0..N-1) and TQ_SHARD_TOTAL; prints the "
                  "group's id, which wait, status, cancel and retry take")
      ->check(DecimalCheck({1, kMaxShards, "a shard count"}));
  sub->add_flag("--batch", f->batch, "one task per line of standard input (run by the shell)");
  sub->add_flag("-0,--null", f->batch_nul,
                "with --batch: NUL-separated arguments, an empty one ends each task");
  sub->add_flag("--json-lines", f->batch_json,
                "with --batch: one JSON object of submit fields per line");
  return {sub, [f, &g]() {
            auto request = BuildRequest(*f, g);
            if (!request.ok()) return Fail(request.status());
            if (!f->batch) return SubmitOne(std::move(*request), g);
            const BatchFormat format = f->batch_nul    ? BatchFormat::kNulArgv
                                       : f->batch_json ? BatchFormat::kJsonLines
                                                       : BatchFormat::kShellLines;
            return SubmitBatch(*request, format, std::cin, g);
          }};
}

}  // namespace tq
