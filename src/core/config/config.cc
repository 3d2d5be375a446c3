#include "core/config/config.h"

#include <sys/un.h>
#include <unistd.h>

#include <toml++/toml.h>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/config/toml_check.h"
#include "core/model/host_name.h"
#include "core/model/name_text.h"
#include "core/model/quote.h"

namespace tq {

namespace {
constexpr int64_t kIntMax = std::numeric_limits<int>::max();
// A tqd.toml is a few hundred bytes; anything past this is not a config file.
constexpr size_t kMaxConfigBytes = 1 << 20;
// The longest socket path bind() accepts (sun_path holds it plus the terminating NUL).
constexpr size_t kMaxSocketPath = sizeof(sockaddr_un{}.sun_path) - 1;

constexpr const char* kTopKeys =
    "max_running, output_max, kill_grace, high_share, durability, store, host, host_lease, "
    "socket, state_dir, jobs_dir, success_retention, purge_after, admin_group, allow_users, "
    "deny_users, cgroup, metrics_textfile, metrics_interval, sendmail, hook_timeout, "
    "[queues.NAME], [user_limits], [users.NAME], [resources]";
constexpr const char* kLimitKeys =
    "max_pending, submit_rate, submit_burst, max_running, output_bytes, max_queues";
constexpr const char* kQueueKeys =
    "concurrency, priority_mix, retries, backoff, backoff_base, backoff_max, jitter, "
    "retry_on_exit, "
    "no_retry_on_exit, retry_priority_penalty, nice, ionice, nofile, nproc, core, memory_max, "
    "cpu_weight, pids_max, allow_users, allow_groups, hosts";
// A queue names at most this many hosts: more than a store's hosts is a mistake.
constexpr size_t kMaxQueueHosts = 256;
constexpr const char* kSizeHelp = "units B KiB MiB GiB or K M G, e.g. 8MiB or 512KiB";
constexpr const char* kQueueNameHelp = "use 1 to 64 characters from A-Z a-z 0-9 _ . -";

// Notes the names of `v` (one name, or an array of names, already checked) as accounts `key`
// gives: groups when `group`, else users.
void NoteAccounts(const std::string& key, int line, const toml::node& v, bool group,
                  std::vector<AccountMention>* out) {
  const auto note = [&](const toml::node& n) {
    const int at = n.source().begin.line > 0 ? static_cast<int>(n.source().begin.line) : line;
    if (const auto* name = n.as_string()) out->push_back({key, at, name->get(), group});
  };
  if (const toml::array* a = v.as_array()) {
    for (const toml::node& item : *a) note(item);
  } else {
    note(v);
  }
}

// `[resources]`: each key a resource, its value a count of units (named 0, 1, ...) or an array
// of unit names.
Status ParseUnitPools(const TomlChecker& ck, const toml::node& v, int line, UnitPools* out) {
  const toml::table* t = v.as_table();
  if (t == nullptr)
    return ck.Error("resources", line,
                    DescribeToml(v) + " is not a table (use a [resources] section, e.g. gpu = 4)");
  if (static_cast<int>(t->size()) > kMaxResources)
    return ck.Error("resources", line,
                    std::to_string(t->size()) + " resources is too many (at most " +
                        std::to_string(kMaxResources) + ")");
  for (auto&& [k, rv] : *t) {
    const std::string name(k.str());
    const std::string key = "resources." + name;
    const int rline = TomlLine(k, rv);
    if (!ValidResourceName(name))
      return ck.Error("resources", rline,
                      Quote(name) + " is not a valid resource name (" + kResourceNameHelp + ")");
    std::vector<std::string> units;
    const std::string help = "use a count from 1 to " + std::to_string(kMaxUnitsPerResource) +
                             " or an array of 1 to " + std::to_string(kMaxUnitsPerResource) +
                             " unit names, e.g. 4 or [\"0\", \"1\"]";
    if (rv.is_integer()) {
      int64_t n = 0;
      if (Status s = ck.Int(key, rline, rv, 1, kMaxUnitsPerResource, &n); !s.ok()) return s;
      for (int64_t i = 0; i < n; ++i) units.push_back(std::to_string(i));
    } else if (const toml::array* a = rv.as_array()) {
      if (a->empty() || static_cast<int>(a->size()) > kMaxUnitsPerResource)
        return ck.Error(
            key, rline,
            DescribeToml(rv) + " has " + std::to_string(a->size()) + " units (" + help + ")");
      for (const toml::node& u : *a) {
        const auto* str = u.as_string();
        if (str == nullptr || !ValidUnitName(str->get()))
          return ck.Error(key, rline,
                          DescribeToml(u) + " is not a unit name (" + kUnitNameHelp + ")");
        if (std::find(units.begin(), units.end(), str->get()) != units.end())
          return ck.Error(key, rline, Quote(str->get()) + " is named twice (name each unit once)");
        units.push_back(str->get());
      }
    } else {
      return ck.Error(key, rline, DescribeToml(rv) + " is not a count of units (" + help + ")");
    }
    (*out)[name] = std::move(units);
  }
  return Status::Ok();
}

// A queue's `hosts` (SPEC 12): "any", or an array of 1 to kMaxQueueHosts host names.
Status ParseQueueHosts(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                       QueueHosts* out) {
  const std::string help = "use \"any\" or an array of 1 to " + std::to_string(kMaxQueueHosts) +
                           " host names, e.g. [\"web-1\", \"web-2\"]";
  if (const auto* str = v.as_string()) {
    if (str->get() != "any")
      return ck.Error(key, line, DescribeToml(v) + " is not hosts (" + help + ")");
    *out = QueueHosts{true, {}};
    return Status::Ok();
  }
  const toml::array* a = v.as_array();
  if (a == nullptr) return ck.Error(key, line, DescribeToml(v) + " is not hosts (" + help + ")");
  if (a->empty() || a->size() > kMaxQueueHosts)
    return ck.Error(key, line,
                    "an array of " + std::to_string(a->size()) + " host names (" + help + ")");
  QueueHosts hosts;
  for (const toml::node& h : *a) {
    const auto* name = h.as_string();
    if (name == nullptr)
      return ck.Error(key, line, DescribeToml(h) + " is not a host name (" + help + ")");
    if (Status s = CheckHostName("host", name->get()); !s.ok())
      return ck.Error(key, line, s.message());
    if (std::find(hosts.names.begin(), hosts.names.end(), name->get()) == hosts.names.end())
      hosts.names.push_back(name->get());
  }
  *out = std::move(hosts);
  return Status::Ok();
}

Status ParseQueue(const TomlChecker& ck, const std::string& name, const toml::table& t,
                  QueueConfig* out, std::vector<AccountMention>* accounts) {
  for (auto&& [k, v] : t) {
    std::string key = "queues." + name + "." + std::string(k.str());
    int line = TomlLine(k, v);
    const std::string_view name_in_queue = k.str();
    int64_t n = 0;
    Status s;
    if (name_in_queue == "concurrency") {
      s = ck.Int(key, line, v, 1, kIntMax, &n);
      out->concurrency = static_cast<int>(n);
    } else if (name_in_queue == "priority_mix") {
      const auto* str = v.as_string();
      auto mix = str ? PriorityMixNamed(str->get()) : std::nullopt;
      if (!mix)
        return ck.Error(key, line,
                        DescribeToml(v) + " is not a priority mix (use \"80/20\" or \"strict\")");
      out->priority_mix = *mix;
    } else if (name_in_queue == "retries") {
      s = ck.Int(key, line, v, 0, 1000, &n);
      out->retry.retries = static_cast<int>(n);
    } else if (name_in_queue == "backoff") {
      const auto* str = v.as_string();
      auto kind = str ? BackoffFromName(str->get()) : std::nullopt;
      if (!kind)
        return ck.Error(
            key, line,
            DescribeToml(v) + " is not a backoff (use fixed, exponential or progressive)");
      out->retry.backoff = *kind;
    } else if (name_in_queue == "backoff_base") {
      s = ck.Duration(key, line, v, &out->retry.base_ms);
    } else if (name_in_queue == "backoff_max") {
      s = ck.Duration(key, line, v, &out->retry.max_ms);
    } else if (name_in_queue == "jitter") {
      s = ck.Bool(key, line, v, &out->retry.jitter);
    } else if (name_in_queue == "retry_on_exit") {
      s = ck.ExitCodes(key, line, v, &out->retry.retry_on_exit);
    } else if (name_in_queue == "no_retry_on_exit") {
      s = ck.ExitCodes(key, line, v, &out->retry.no_retry_on_exit);
    } else if (name_in_queue == "retry_priority_penalty") {
      s = ck.Int(key, line, v, 0, kMaxPriority - kMinPriority, &n);
      out->retry_priority_penalty = static_cast<int>(n);
    } else if (IsResourceKey(name_in_queue)) {
      s = ck.Resource(key, name_in_queue, line, v, &out->resources);
    } else if (name_in_queue == "allow_users") {
      s = ck.AccountNames(key, line, v, &out->users.users);
      out->users.restricted = true;
      NoteAccounts(key, line, v, /*group=*/false, accounts);
    } else if (name_in_queue == "allow_groups") {
      s = ck.AccountNames(key, line, v, &out->users.groups);
      out->users.restricted = true;
      NoteAccounts(key, line, v, /*group=*/true, accounts);
    } else if (name_in_queue == "hosts") {
      s = ParseQueueHosts(ck, key, line, v, &out->hosts);
    } else {
      return ck.Error(key, line,
                      std::string("unknown key (allowed in a queue: ") + kQueueKeys + ")");
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

// A size in bytes of at least 1: an integer, or a string with a unit (ParseSize).
Status SizeValue(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                 int64_t* out) {
  std::string help = std::string("use bytes as an integer or a size string, ") + kSizeHelp;
  int64_t bytes = 0;
  if (const auto* i = v.as_integer()) {
    bytes = i->get();
  } else if (const auto* str = v.as_string()) {
    Result<int64_t> r = ParseSize(str->get(), key);
    if (!r.ok()) return ck.Wrap(key, line, r.status());
    bytes = *r;
  } else {
    return ck.Error(key, line, DescribeToml(v) + " is not a size (" + help + ")");
  }
  if (bytes < 1)
    return ck.Error(key, line, DescribeToml(v) + " is not at least 1 byte (" + help + ")");
  *out = bytes;
  return Status::Ok();
}

// A table of per-user limits (`[user_limits]`, `[users.NAME]`, whose dotted name is `prefix`)
// over `out`, which holds the values of the keys it leaves out.
Status ParseLimits(const TomlChecker& ck, const std::string& prefix, const toml::node& node,
                   int node_line, UserLimits* out) {
  const toml::table* t = node.as_table();
  if (t == nullptr)
    return ck.Error(prefix, node_line,
                    DescribeToml(node) + " is not a table (use a [" + prefix + "] section)");
  for (auto&& [k, v] : *t) {
    const std::string key = prefix + "." + std::string(k.str());
    const int line = TomlLine(k, v);
    const std::string_view name = k.str();
    Status s;
    if (name == "max_pending") {
      s = ck.Int(key, line, v, 1, std::numeric_limits<int64_t>::max(), &out->max_pending);
    } else if (name == "submit_rate") {
      const char* help = "use tasks per second, a number above 0, e.g. 100 or 0.5";
      const auto* f = v.as_floating_point();
      const auto* i = v.as_integer();
      const double x = f ? f->get() : i ? static_cast<double>(i->get()) : -1;
      if (f == nullptr && i == nullptr)
        return ck.Error(key, line, DescribeToml(v) + " is not a number (" + help + ")");
      if (!(x > 0 && x <= 1e9))
        return ck.Error(key, line, DescribeToml(v) + " is out of range (" + help + ")");
      out->submit_rate = x;
    } else if (name == "submit_burst") {
      s = ck.Int(key, line, v, 1, 1000000000, &out->submit_burst);
    } else if (name == "max_running") {
      s = ck.Int(key, line, v, 0, kIntMax, &out->max_running);
    } else if (name == "output_bytes") {
      s = SizeValue(ck, key, line, v, &out->output_bytes);
    } else if (name == "max_queues") {
      s = ck.Int(key, line, v, 0, 100000, &out->max_queues);
    } else {
      return ck.Error(key, line, std::string("unknown key (allowed: ") + kLimitKeys + ")");
    }
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

// `[users.NAME]` tables: each over the parsed `[user_limits]`, whatever the file's order.
Status ParseUsers(const TomlChecker& ck, const toml::node& v, int line, Config* cfg) {
  const toml::table* users = v.as_table();
  if (users == nullptr)
    return ck.Error("users", line, DescribeToml(v) + " is not a table (use [users.NAME] sections)");
  for (auto&& [uk, uv] : *users) {
    const std::string name(uk.str());
    const int uline = TomlLine(uk, uv);
    if (!ValidAccountName(name))
      return ck.Error("users", uline,
                      Quote(name) +
                          " is not a user name (1 to 256 characters from A-Z a-z 0-9 _ "
                          ". -, not starting with - or ., optionally ending in $)");
    UserLimits limits = cfg->user_limits;
    Status s = ParseLimits(ck, "users." + name, uv, uline, &limits);
    if (!s.ok()) return s;
    cfg->user_overrides[name] = limits;
    cfg->accounts.push_back({"users." + name, uline, name, /*group=*/false});
  }
  return Status::Ok();
}

Status ParseKey(const TomlChecker& ck, const toml::key& k, const toml::node& v, Config* cfg) {
  const std::string key(k.str());
  const int line = TomlLine(k, v);
  if (key == "max_running") {
    int64_t n = 0;
    Status s = ck.Int(key, line, v, 1, kIntMax, &n);
    if (!s.ok()) return s;
    cfg->max_running = static_cast<int>(n);
  } else if (key == "output_max") {
    return SizeValue(ck, key, line, v, &cfg->output_max);
  } else if (key == "resources") {
    return ParseUnitPools(ck, v, line, &cfg->unit_pools);
  } else if (key == "user_limits") {
    return ParseLimits(ck, key, v, line, &cfg->user_limits);
  } else if (key == "kill_grace") {
    return ck.Duration(key, line, v, &cfg->kill_grace_ms);
  } else if (key == "success_retention") {
    return ck.Duration(key, line, v, &cfg->success_retention_ms);
  } else if (key == "purge_after") {
    return ck.Duration(key, line, v, &cfg->purge_after_ms);
  } else if (key == "high_share") {
    const char* help = "use a number from 0 to 1, e.g. 0.8";
    double x;
    if (const auto* f = v.as_floating_point()) {
      x = f->get();
    } else if (const auto* i = v.as_integer()) {
      x = static_cast<double>(i->get());
    } else {
      return ck.Error(key, line, DescribeToml(v) + " is not a number (" + help + ")");
    }
    if (!(x >= 0.0 && x <= 1.0)) {  // also refuses NaN
      return ck.Error(key, line, DescribeToml(v) + " is out of range (" + help + ")");
    }
    cfg->high_share = x;
  } else if (key == "durability") {
    const auto* str = v.as_string();
    if (str == nullptr || (str->get() != "full" && str->get() != "normal")) {
      return ck.Error(key, line, DescribeToml(v) + " is not allowed (use \"full\" or \"normal\")");
    }
    cfg->durability_full = str->get() == "full";
  } else if (key == "store") {
    // The value may carry a password: a refusal never quotes it.
    const auto* str = v.as_string();
    const std::string value = str != nullptr ? str->get() : "";
    if (value != "sqlite" && value.rfind("postgresql://", 0) != 0 &&
        value.rfind("postgres://", 0) != 0) {
      return ck.Error(key, line,
                      "the value is neither \"sqlite\" nor a PostgreSQL URI (use \"sqlite\" or, "
                      "e.g., \"postgresql:///tq?host=/run/postgresql\")");
    }
    cfg->store = value == "sqlite" ? "" : value;
  } else if (key == "host") {
    const auto* str = v.as_string();
    if (str == nullptr)
      return ck.Error(key, line, DescribeToml(v) + " is not allowed (use a host name)");
    if (Status s = CheckHostName("host", str->get()); !s.ok())
      return ck.Error(key, line, s.message());
    cfg->host = str->get();
  } else if (key == "host_lease") {
    Status s = ck.Duration(key, line, v, &cfg->host_lease_ms);
    if (s.ok() && (cfg->host_lease_ms < 3000 || cfg->host_lease_ms > 3600000))
      return ck.Error(
          key, line, DescribeToml(v) + " is out of range (use a duration from 3s to 1h, e.g. 30s)");
    return s;
  } else if (key == "socket") {
    return ck.Path(key, line, v, kMaxSocketPath, &cfg->socket);
  } else if (key == "state_dir") {
    return ck.Path(key, line, v, 4095, &cfg->state_dir);
  } else if (key == "jobs_dir") {
    return ck.Path(key, line, v, 4095, &cfg->jobs_dir);
  } else if (key == "metrics_textfile") {
    return ck.Path(key, line, v, 4095, &cfg->metrics_textfile);
  } else if (key == "metrics_interval") {
    Status s = ck.Duration(key, line, v, &cfg->metrics_interval_ms);
    if (s.ok() && (cfg->metrics_interval_ms < 1000 || cfg->metrics_interval_ms > 86400000))
      return ck.Error(
          key, line, DescribeToml(v) + " is out of range (use a duration from 1s to 1d, e.g. 60s)");
    return s;
  } else if (key == "sendmail") {
    Status s = ck.Path(key, line, v, 4095, &cfg->sendmail);
    if (s.ok() && cfg->sendmail.empty())
      return ck.Error(key, line, "\"\" is not allowed (use the absolute path of sendmail)");
    return s;
  } else if (key == "hook_timeout") {
    Status s = ck.Duration(key, line, v, &cfg->hook_timeout_ms);
    if (s.ok() && (cfg->hook_timeout_ms < 1000 || cfg->hook_timeout_ms > 86400000))
      return ck.Error(
          key, line, DescribeToml(v) + " is out of range (use a duration from 1s to 1d, e.g. 60s)");
    return s;
  } else if (key == "cgroup") {
    const auto* str = v.as_string();
    if (str != nullptr && (str->get() == "auto" || str->get() == "off")) {
      cfg->cgroup = str->get();
      return Status::Ok();
    }
    Status s = ck.Path(key, line, v, 4095, &cfg->cgroup);
    if (s.ok() && cfg->cgroup.empty())
      return ck.Error(key, line,
                      "\"\" is not allowed (use \"auto\", \"off\" or the absolute path of a "
                      "delegated cgroup v2 directory)");
    return s;
  } else if (key == "admin_group") {
    Status s = ck.AccountName(key, line, v, &cfg->users.admin_group);
    if (!s.ok()) return s;
    NoteAccounts(key, line, v, /*group=*/true, &cfg->accounts);
  } else if (key == "allow_users") {
    std::vector<std::string> names;
    Status s = ck.AccountNames(key, line, v, &names);
    if (!s.ok()) return s;
    cfg->users.allow_users = std::move(names);
    NoteAccounts(key, line, v, /*group=*/false, &cfg->accounts);
  } else if (key == "deny_users") {
    Status s = ck.AccountNames(key, line, v, &cfg->users.deny_users);
    if (!s.ok()) return s;
    NoteAccounts(key, line, v, /*group=*/false, &cfg->accounts);
  } else if (key == "queues") {
    const toml::table* queues = v.as_table();
    if (queues == nullptr) {
      return ck.Error(key, line, DescribeToml(v) + " is not a table (use [queues.NAME] sections)");
    }
    for (auto&& [qk, qv] : *queues) {
      std::string name(qk.str());
      int qline = TomlLine(qk, qv);
      if (!ValidQueueName(name)) {
        return ck.Error(key, qline,
                        Quote(name) + " is not a valid queue name (" + kQueueNameHelp + ")");
      }
      const toml::table* qt = qv.as_table();
      if (qt == nullptr) {
        return ck.Error("queues." + name, qline,
                        DescribeToml(qv) + " is not a table (use a [queues." + name + "] section)");
      }
      QueueConfig qc;
      Status s = ParseQueue(ck, name, *qt, &qc, &cfg->accounts);
      if (!s.ok()) return s;
      cfg->queues[name] = qc;
    }
  } else {
    return ck.Error(key, line, std::string("unknown key (allowed: ") + kTopKeys + ")");
  }
  return Status::Ok();
}
}  // namespace

const QueueConfig& Config::Queue(const std::string& queue) const {
  static const QueueConfig kDefaults;
  auto it = queues.find(queue);
  return it == queues.end() ? kDefaults : it->second;
}

RetryPolicy Config::RetryFor(const std::string& queue, const RetryOverrides& overrides) const {
  return ApplyOverrides(Queue(queue).retry, overrides);
}

const UserLimits& Config::LimitsFor(const std::string& name) const {
  auto it = user_overrides.find(name);
  return it == user_overrides.end() ? user_limits : it->second;
}

int DefaultMaxRunning() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > kIntMax ? static_cast<int>(kIntMax) : static_cast<int>(n);
}

Result<int64_t> ParseSize(std::string_view text, const std::string& field) {
  auto refuse = [&](const std::string& reason) {
    std::string msg = field + ": " + Quote(text) + " is not a size";
    if (!reason.empty()) msg += ": " + reason;
    return Status::Invalid(field, msg + " (use <integer><unit>, " + kSizeHelp + ")");
  };
  if (text.empty()) return refuse("it is empty");
  if (text[0] == '-') return refuse("negative sizes are not allowed");
  size_t i = 0;
  int64_t n = 0;
  bool overflow = false;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    int d = text[i] - '0';
    if (n > (std::numeric_limits<int64_t>::max() - d) / 10) overflow = true;
    if (!overflow) n = n * 10 + d;
    ++i;
  }
  if (i == 0) return refuse("it does not start with a number");
  std::string_view unit = text.substr(i);
  int64_t mult;
  if (unit.empty() || unit == "B") {
    mult = 1;
  } else if (unit == "K" || unit == "KiB") {
    mult = int64_t{1} << 10;
  } else if (unit == "M" || unit == "MiB") {
    mult = int64_t{1} << 20;
  } else if (unit == "G" || unit == "GiB") {
    mult = int64_t{1} << 30;
  } else {
    return refuse("unknown unit " + Quote(unit));
  }
  if (overflow || n > std::numeric_limits<int64_t>::max() / mult) {
    return Status::Invalid(field, field + ": " + Quote(text) + " is too large");
  }
  return n * mult;
}

Result<Config> ParseConfig(std::string_view toml_text, const std::string& source_name) {
  TomlChecker ck(source_name);
  Result<toml::table> root = ParseTomlText(toml_text, source_name);
  if (!root.ok()) return root.status();
  Config cfg;
  for (auto&& [k, v] : *root) {
    if (k.str() == "users") continue;  // after [user_limits], which it builds on
    Status s = ParseKey(ck, k, v, &cfg);
    if (!s.ok()) return s;
  }
  if (auto users = root->find("users"); users != root->end()) {
    Status s = ParseUsers(ck, users->second, TomlLine(users->first, users->second), &cfg);
    if (!s.ok()) return s;
  }
  return cfg;
}

Result<Config> LoadConfig(const std::string& path, bool must_exist) {
  auto io_error = [&](const std::string& what) {
    return Status(ErrorCode::kConfig, "", path + ": " + what);
  };
  std::FILE* f = std::fopen(path.c_str(), "re");
  if (f == nullptr) {
    if (errno == ENOENT && !must_exist) return Config();
    return io_error(std::string("cannot open: ") + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxConfigBytes) {
      std::fclose(f);
      return io_error("larger than " + std::to_string(kMaxConfigBytes) +
                      " bytes; not a config file");
    }
  }
  bool failed = std::ferror(f) != 0;
  int err = errno;
  std::fclose(f);
  if (failed) return io_error(std::string("cannot read: ") + std::strerror(err));
  return ParseConfig(text, path);
}

}  // namespace tq
