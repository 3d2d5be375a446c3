#include "core/jobs/job_file.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "core/config/config.h"
#include "core/config/toml_check.h"
#include "core/cron/cron_zone.h"
#include "core/jobs/file_errors.h"
#include "core/jobs/job_values.h"
#include "core/jobs/stage_tables.h"
#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/task.h"

namespace tq {

namespace {

constexpr const char* kJobKeys =
    "name, schedule, timezone, dst, command, shell, argv, stages, user, cwd, env, stdin, "
    "queue, priority, timeout, pending_ttl, retries, backoff, retry_on_exit, no_retry_on_exit, "
    "overlap, misfire, max_catch_up, max_lateness, random_delay, nice, ionice, nofile, nproc, "
    "core, on_failure, on_success, on_finish, mailto, mail_on, expect_success_within, enabled, "
    "use, shards";
constexpr int64_t kMaxCatchUp = 1000;                 // catch-up runs after one downtime
constexpr size_t kMaxUserBytes = 255;                 // LOGIN_NAME_MAX without its NUL
constexpr size_t kMaxExecString = kMaxArgStrlen - 1;  // one argument or "NAME=VALUE" for execve
// "Never fires" is judged from a fixed instant, 2000-01-01T00:00:00Z, so a file reads the same
// whenever it is read: schedules repeat, so one that fires at all fires within
// kCronHorizonYears of any instant.
constexpr WallMs kNeverFiresFrom = 946684800000;

// Whether `name` can be an environment variable's name: a letter or _, then letters, digits, _.
bool ValidEnvName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

// Whether `name` can be a user name: what useradd takes, give or take, and nothing that would
// break a passwd line or a path.
bool ValidUserName(std::string_view name) {
  if (name.empty() || name.size() > kMaxUserBytes || name[0] == '-') return false;
  for (unsigned char c : name)
    if (c <= ' ' || c == 0x7f || c == ':' || c == '/' || c == ',') return false;
  return true;
}

// A job (or the defaults) as its tables build it up.
struct Draft {
  JobDef def;
  int schedule_line = 0;  // where the schedule was given; 0: not given
  TimeZone zone;          // the loaded `timezone`, when one was given
  bool has_zone = false;
  std::string schedule_key;  // the dotted key of the schedule, for a "never fires" refusal
};

// Which keys one table gives, with their lines (0: not given).
struct Given {
  int command = 0;
  int argv = 0;
  int shell = 0;
  int stages = 0;
};

class JobFileReader {
 public:
  explicit JobFileReader(const std::string& path) : path_(path), ck_(path), errors_(path) {}

  // Every error of the file, or its jobs.
  Result<JobFile> Read(const toml::table& root) {
    JobFile file;
    file.path = path_;
    Draft defaults;
    const toml::array* jobs = nullptr;
    for (auto [kp, vp] : InFileOrder(root)) {
      const toml::key& k = *kp;
      const toml::node& v = *vp;
      const int line = TomlLine(k, v);
      const std::string key = KeyText(k.str());
      if (k.str() == "defaults") {
        const toml::table* t = v.as_table();
        if (t == nullptr) {
          errors_.Add(
              ck_.Error(key, line, DescribeToml(v) + " is not a table (use a [defaults] table)"));
        } else {
          Apply(*t, "defaults.", &defaults, nullptr);
        }
      } else if (k.str() == "job") {
        jobs = v.as_array();
        if (jobs == nullptr || !jobs->is_array_of_tables()) {
          jobs = nullptr;
          errors_.Add(ck_.Error(key, line,
                                DescribeToml(v) + " is not a list of jobs (use a [[job]] table for "
                                                  "each job)"));
        }
      } else {
        errors_.Add(ck_.Error(
            key, line, "unknown key (allowed at the top of a job file: [defaults] and [[job]])"));
      }
    }
    // The defaults are read and checked first, wherever they are. A job is checked whole (its
    // name, schedule, command) only when its keys and the defaults were all good.
    const bool defaults_good = errors_.count() == 0;
    static const toml::array kNoJobs;
    std::map<std::string, int> lines_by_name;
    for (const toml::node& n : jobs ? *jobs : kNoJobs) {
      const toml::table& t = *n.as_table();
      Draft d = defaults;
      d.def.file = path_;
      d.def.line = static_cast<int>(t.source().begin.line);
      Given given;
      const int before = errors_.count();
      Apply(t, "", &d, &given);
      if (errors_.count() > before || !defaults_good || !errors_.Add(Finish(t, given, &d)))
        continue;
      auto [it, fresh] = lines_by_name.emplace(d.def.name, d.def.line);
      if (!fresh) {
        errors_.Add(ck_.Error("name", NameLine(t),
                              Quote(d.def.name) + " is already the name of the job at line " +
                                  std::to_string(it->second) + " (names must be unique)"));
        continue;
      }
      file.jobs.push_back(std::move(d.def));
    }
    if (Status s = errors_.Joined(); !s.ok()) return s;
    return file;
  }

 private:
  // The line of a job's `name`, or of its header.
  static int NameLine(const toml::table& t) {
    for (auto&& [k, v] : t)
      if (k.str() == "name") return TomlLine(k, v);
    return static_cast<int>(t.source().begin.line);
  }

  // Applies every key of table `t` (a job, or the defaults when `given` is null) to `d`, adding
  // each refusal to the file's errors.
  void Apply(const toml::table& t, const std::string& prefix, Draft* d, Given* given) {
    Given local;
    Given* g = given != nullptr ? given : &local;
    for (auto [k, v] : InFileOrder(t)) {
      const std::string key = prefix + KeyText(k->str());
      const int line = TomlLine(*k, *v);
      errors_.Add(ApplyKey(k->str(), key, line, *v, prefix.empty(), d, g));
      d->def.key_lines[std::string(k->str())] = line;
    }
    if (g->command > 0 && g->argv > 0)
      errors_.Add(
          ck_.Error(prefix + "argv", std::max(g->command, g->argv),
                    "a job runs either command (by its shell) or argv (directly), not both"));
    if (g->stages > 0 && (g->command > 0 || g->argv > 0))
      errors_.Add(
          ck_.Error(prefix + "stages", std::max({g->stages, g->command, g->argv}),
                    std::string("a job runs either stages (each with its own command) or ") +
                        (g->command > 0 ? "command" : "argv") + ", not both"));
    if (g->argv > 0 && g->shell > 0)
      errors_.Add(
          ck_.Error(prefix + "shell", g->shell,
                    "shell applies to command only; this table gives argv, which runs directly"));
  }

  // Checks what only the whole job can tell: a name, a schedule that fires, a command.
  Status Finish(const toml::table& t, const Given& g, Draft* d) {
    JobDef& def = d->def;
    const int header = static_cast<int>(t.source().begin.line);
    if (def.name.empty())
      return ck_.Error("name", header,
                       "a job needs a name (1 to 64 characters from A-Z a-z 0-9 _ . -)");
    if (d->schedule_line == 0)
      return ck_.Error("schedule", header,
                       "job " + Quote(def.name) +
                           " needs a schedule (5 or 6 cron fields, a macro such as @daily, "
                           "@every DURATION or @reboot)");
    if (!def.command && def.argv.empty() && def.stages.empty())
      return ck_.Error("command", header,
                       "job " + Quote(def.name) +
                           " needs a command (command = \"...\" run by its shell, argv = "
                           "[\"program\", \"arg\"...], or stages = [{ name = \"...\", command = "
                           "\"...\" }, ...])");
    if (g.shell > 0 && !def.command && def.stages.empty())
      return ck_.Error("shell", g.shell,
                       "shell applies to command only; this job runs argv (from [defaults]) "
                       "directly");
    if (def.schedule.kind == CronKind::kFields) {
      Result<TimeZone> zone = d->has_zone ? Result<TimeZone>(d->zone) : LocalZone();
      if (!zone.ok()) return Status::Ok();  // the daemon judges it in its own zone
      Result<WallMs> next = NextFire(def.schedule, kNeverFiresFrom, *zone, def.dst);
      if (!next.ok())  // NextFire refuses nothing else here: the instant is fixed, not @reboot
        return ck_.Error(d->schedule_key, d->schedule_line,
                         Quote(def.schedule.text) + " never fires in " + zone->name() +
                             " with dst = " + DstPolicyName(def.dst) + " (no firing within " +
                             std::to_string(kCronHorizonYears) + " years)");
    }
    return Status::Ok();
  }

  // The daemon's local zone, loaded once per file.
  Result<TimeZone> LocalZone() {
    if (!local_zone_) local_zone_ = LocalTimeZone();
    return *local_zone_;
  }

  // A zone by name, loaded once per file.
  Result<TimeZone> Zone(const std::string& name, const std::string& key) {
    auto it = zones_.find(name);
    if (it != zones_.end()) return it->second;
    Result<TimeZone> zone = LoadTimeZone(name, key);
    if (zone.ok()) zones_.emplace(name, *zone);
    return zone;
  }

  // A string naming one of a few choices; `parse` turns it into the value.
  template <typename T, typename Parse>
  Status Choice(const std::string& key, int line, const toml::node& v, Parse parse,
                const char* allowed, T* out) const {
    const auto* s = v.as_string();
    std::optional<T> parsed;
    if (s != nullptr) parsed = parse(s->get());
    if (!parsed)
      return ck_.Error(key, line, DescribeToml(v) + " is not allowed (use " + allowed + ")");
    *out = *parsed;
    return Status::Ok();
  }

  Status ApplyKey(std::string_view name, const std::string& key, int line, const toml::node& v,
                  bool in_job, Draft* d, Given* g) {
    JobDef& def = d->def;
    int64_t n = 0;
    Status s;
    if (name == "name") {
      if (!in_job)
        return ck_.Error(key, line, "a name cannot be a default (give each [[job]] its own name)");
      std::string text;
      s = ReadText(ck_, key, line, v, 64, "use 1 to 64 characters from A-Z a-z 0-9 _ . -", &text);
      if (s.ok() && !ValidJobName(text))
        return ck_.Error(
            key, line,
            DescribeToml(v) + " is not a job name (use 1 to 64 characters from A-Z a-z 0-9 _ . -)");
      def.name = text;
    } else if (name == "schedule") {
      std::string text;
      s = ReadText(ck_, key, line, v, 1024,
                   "use 5 or 6 cron fields, a macro such as @daily, @every "
                   "DURATION or @reboot",
                   &text);
      if (!s.ok()) return s;
      Result<CronExpr> expr = ParseCron(text);
      if (!expr.ok()) return ck_.Error(key, line, expr.status().message());
      def.schedule = *expr;
      d->schedule_line = line;
      d->schedule_key = key;
    } else if (name == "timezone") {
      std::string text;
      s = ReadText(ck_, key, line, v, 256, "use an IANA zone such as Europe/Berlin or UTC", &text);
      if (!s.ok()) return s;
      Result<TimeZone> zone = Zone(text, key);
      if (!zone.ok()) return ck_.Wrap(key, line, zone.status());
      def.timezone = text;
      d->zone = *zone;
      d->has_zone = true;
    } else if (name == "dst") {
      const auto* str = v.as_string();
      if (str == nullptr)
        return ck_.Error(key, line,
                         DescribeToml(v) + " is not allowed (use cron, skip, first or both)");
      Result<DstPolicy> dst = ParseDstPolicy(str->get(), key);
      if (!dst.ok()) return ck_.Wrap(key, line, dst.status());
      def.dst = *dst;
    } else if (name == "command") {
      std::string text;
      s = ReadCommandLine(ck_, key, line, v, &text);
      def.command = text;
      def.argv.clear();
      g->command = line;
    } else if (name == "shell") {
      s = ck_.Path(key, line, v, kMaxCwdBytes, &def.shell);
      if (s.ok() && def.shell.empty())
        return ck_.Error(key, line, "\"\" is not a shell (use an absolute path such as /bin/sh)");
      g->shell = line;
    } else if (name == "argv") {
      s = ReadArgv(ck_, key, line, v, &def.argv);
      def.command.reset();
      g->argv = line;
    } else if (name == "stages") {
      if (!in_job)
        return ck_.Error(key, line,
                         "stages cannot be a default (give each [[job]] its own stages)");
      g->stages = line;
      ReadStageTables(ck_, key, line, v, &errors_, &def.stages);
      def.command.reset();
      def.argv.clear();
    } else if (name == "user") {
      std::string text;
      s = ReadText(ck_, key, line, v, kMaxUserBytes, "use a user name from the password database",
                   &text);
      if (s.ok() && !ValidUserName(text))
        return ck_.Error(key, line,
                         DescribeToml(v) +
                             " is not a user name (use a name from the password "
                             "database, without spaces, ':' or '/')");
      def.user = text;
    } else if (name == "cwd") {
      s = ck_.Path(key, line, v, kMaxCwdBytes, &def.cwd);
    } else if (name == "env") {
      s = Env(key, line, v, &def.env);
    } else if (name == "stdin") {
      std::string text;
      s = ReadText(ck_, key, line, v, kMaxStdinBytes, "use the text to feed to the command", &text);
      def.stdin_data = text;
    } else if (name == "queue") {
      std::string text;
      s = ReadText(ck_, key, line, v, 64, "use 1 to 64 characters from A-Z a-z 0-9 _ . -", &text);
      if (s.ok() && !ValidQueueName(text))
        return ck_.Error(
            key, line,
            DescribeToml(v) +
                " is not a queue name (use 1 to 64 characters from A-Z a-z 0-9 _ . -)");
      def.queue = text;
    } else if (name == "priority") {
      s = ck_.Int(key, line, v, kMinPriority, kMaxPriority, &n);
      def.priority = static_cast<int>(n);
    } else if (name == "timeout") {
      s = ck_.Duration(key, line, v, &def.timeout_ms);
    } else if (name == "use") {
      s = Use(key, line, v, &def.use);
    } else if (name == "shards") {
      s = ck_.Int(key, line, v, 1, kMaxShards, &n);
      def.shards = static_cast<int>(n);
    } else if (name == "pending_ttl") {
      s = ck_.Duration(key, line, v, &def.pending_ttl_ms);
    } else if (IsRetryKey(name)) {
      s = ReadRetryKey(ck_, name, key, line, v, &def.retry);
    } else if (name == "overlap") {
      s = Choice<Overlap>(key, line, v, OverlapFromName, "skip, queue, allow or replace",
                          &def.overlap);
    } else if (name == "misfire") {
      s = Choice<Misfire>(key, line, v, MisfireFromName, "skip, run_once or run_all", &def.misfire);
    } else if (name == "max_catch_up") {
      s = ck_.Int(key, line, v, 1, kMaxCatchUp, &n);
      def.max_catch_up = static_cast<int>(n);
    } else if (name == "max_lateness") {
      s = ck_.Duration(key, line, v, &def.max_lateness_ms);
    } else if (name == "random_delay") {
      s = ck_.Duration(key, line, v, &def.random_delay_ms);
    } else if (IsResourceKey(name)) {
      s = ck_.Resource(key, name, line, v, &def.resources);
    } else if (name == "on_failure" || name == "on_success" || name == "on_finish" ||
               name == "mailto" || name == "mail_on") {
      s = Notify(name, key, line, v, &def.notify);
    } else if (name == "expect_success_within") {
      s = ck_.Duration(key, line, v, &def.expect_success_within_ms);
      if (s.ok() && def.expect_success_within_ms < 1000)
        return ck_.Error(key, line,
                         DescribeToml(v) +
                             " is too short (use a duration of 1s or more, e.g. "
                             "\"26h\" for a daily job)");
    } else if (name == "enabled") {
      s = ck_.Bool(key, line, v, &def.enabled);
    } else {
      return ck_.Error(key, line,
                       std::string("unknown key (allowed in ") +
                           (in_job ? "a [[job]]" : "[defaults]") + ": " +
                           (in_job ? kJobKeys : "every job key but name and stages") + ")");
    }
    return s;
  }

  // env: a table of NAME = "value"; entries replace those of the same name already there (the
  // defaults'), the others are added after them.
  Status Env(const std::string& key, int line, const toml::node& v,
             std::vector<std::string>* env) const {
    const auto* t = v.as_table();
    if (t == nullptr)
      return ck_.Error(key, line,
                       DescribeToml(v) + " is not a table (use env = { NAME = \"value\", ... })");
    std::vector<std::string> out = *env;
    for (auto [kp, vp] : InFileOrder(*t)) {
      const toml::key& k = *kp;
      const toml::node& value = *vp;
      const std::string name(k.str());
      const std::string entry_key = key + "." + KeyText(name);
      const int entry_line = TomlLine(k, value);
      if (!ValidEnvName(name))
        return ck_.Error(entry_key, entry_line,
                         Quote(name) +
                             " is not a variable name (use A-Z a-z 0-9 _, not starting "
                             "with a digit)");
      if (name.size() >= kMaxExecString)
        return ck_.Error(entry_key, entry_line,
                         "a name of " + std::to_string(name.size()) +
                             " bytes is over the limit of " + std::to_string(kMaxExecString - 1) +
                             " bytes");
      std::string text;
      if (Status s = ReadText(ck_, entry_key, entry_line, value, kMaxExecString - name.size() - 1,
                              "use a string value", &text);
          !s.ok())
        return s;
      std::string entry = name + "=" + text;
      bool replaced = false;
      for (std::string& e : out)
        if (e.compare(0, name.size() + 1, name + "=") == 0) {
          e = entry;
          replaced = true;
        }
      if (!replaced) out.push_back(std::move(entry));
    }
    size_t total = 0;
    for (const std::string& e : out) total += e.size() + 1;
    if (total > kMaxEnvBytes)
      return ck_.Error(key, line,
                       "the variables are over the limit of " + std::to_string(kMaxEnvBytes) +
                           " bytes together");
    *env = std::move(out);
    return Status::Ok();
  }

  // A notification key (SPEC 7a): a hook command, the addresses to mail, or when to mail.
  Status Notify(std::string_view name, const std::string& key, int line, const toml::node& v,
                NotifySpec* n) const {
    if (name == "mail_on")
      return Choice<MailOn>(key, line, v, MailOnFromName, "failure, always or output", &n->mail_on);
    std::string text;
    const bool hook = name != "mailto";
    Status s = ReadText(
        ck_, key, line, v, hook ? kMaxHookBytes : kMaxMailtoBytes,
        hook ? "use a shell command line" : "use mail addresses separated by commas", &text);
    if (!s.ok()) return s;
    s = hook ? CheckHook(key, text) : CheckMailto(key, text);
    if (!s.ok()) return ck_.Wrap(key, line, s);
    if (name == "mailto") n->mailto = text;
    if (name == "on_failure") n->on_failure = text;
    if (name == "on_success") n->on_success = text;
    if (name == "on_finish") n->on_finish = text;
    return Status::Ok();
  }

  // use: a table of resource names and unit counts, { gpu = 1 } (SPEC 14); whether the daemon
  // has the resources is checked when the job is put in force.
  Status Use(const std::string& key, int line, const toml::node& v, UnitRequest* out) const {
    const auto* t = v.as_table();
    if (t == nullptr)
      return ck_.Error(key, line,
                       DescribeToml(v) + " is not a table of units (use e.g. { gpu = 1 })");
    UnitRequest use;
    for (auto [kp, vp] : InFileOrder(*t)) {
      const std::string name(kp->str());
      const int l = TomlLine(*kp, *vp);
      if (!ValidResourceName(name))
        return ck_.Error(key, l,
                         Quote(name) + " is not a resource name (" + kResourceNameHelp + ")");
      int64_t n = 0;
      if (Status s = ck_.Int(key + "." + name, l, *vp, 1, kMaxUnitsPerResource, &n); !s.ok())
        return s;
      use[name] = static_cast<int>(n);
    }
    *out = std::move(use);
    return Status::Ok();
  }

  const std::string& path_;
  TomlChecker ck_;
  FileErrors errors_;
  std::map<std::string, TimeZone> zones_;
  std::optional<Result<TimeZone>> local_zone_;
};

}  // namespace

Result<JobFile> ParseJobFile(std::string_view text, const std::string& path) {
  if (text.size() > kMaxJobFileBytes)
    return Status(ErrorCode::kConfig, "",
                  path + ": the file is " + std::to_string(text.size()) +
                      " bytes, over the limit of " + std::to_string(kMaxJobFileBytes) +
                      " bytes for a job file");
  Result<toml::table> root = ParseTomlText(text, path);
  if (!root.ok()) return root.status();
  return JobFileReader(path).Read(*root);
}

}  // namespace tq
