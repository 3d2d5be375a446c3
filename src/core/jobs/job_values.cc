#include "core/jobs/job_values.h"

#include <algorithm>
#include <optional>

#include "core/model/limits.h"
#include "core/model/quote.h"
#include "core/model/retry_policy.h"

namespace tq {

namespace {

constexpr const char* kBackoffKeys = "kind, base, max, jitter";
constexpr const char* kBackoffKinds = "fixed, exponential or progressive";
constexpr int64_t kMaxRetries = 1000;                 // as tqd.toml's queues allow
constexpr size_t kMaxExecString = kMaxArgStrlen - 1;  // one argument or "NAME=VALUE" for execve

// backoff: a kind ("exponential"), or a table { kind, base, max, jitter }, each part optional.
Status ReadBackoff(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                   RetryOverrides* r) {
  auto kind = [&](const std::string& k, int l, const toml::node& n, RetryOverrides* out) {
    const auto* s = n.as_string();
    std::optional<BackoffKind> parsed = s ? BackoffFromName(s->get()) : std::nullopt;
    if (!parsed)
      return ck.Error(k, l, DescribeToml(n) + " is not a backoff (use " + kBackoffKinds + ")");
    out->backoff = *parsed;
    return Status::Ok();
  };
  if (v.is_string()) return kind(key, line, v, r);
  const auto* t = v.as_table();
  if (t == nullptr)
    return ck.Error(key, line,
                    DescribeToml(v) + " is not a backoff (use " + kBackoffKinds +
                        ", or a table such as { kind = \"exponential\", base = \"30s\", max = "
                        "\"30m\" })");
  RetryOverrides out = *r;
  for (auto [kp, vp] : InFileOrder(*t)) {
    const toml::key& k = *kp;
    const toml::node& value = *vp;
    const std::string part = key + "." + KeyText(k.str());
    const int l = TomlLine(k, value);
    int64_t ms = 0;
    bool jitter = false;
    Status s;
    if (k.str() == "kind") {
      s = kind(part, l, value, &out);
    } else if (k.str() == "base") {
      s = ck.Duration(part, l, value, &ms);
      out.base_ms = ms;
    } else if (k.str() == "max") {
      s = ck.Duration(part, l, value, &ms);
      out.max_ms = ms;
    } else if (k.str() == "jitter") {
      s = ck.Bool(part, l, value, &jitter);
      out.jitter = jitter;
    } else {
      return ck.Error(part, l,
                      std::string("unknown key (allowed in backoff: ") + kBackoffKeys + ")");
    }
    if (!s.ok()) return s;
  }
  *r = std::move(out);
  return Status::Ok();
}

}  // namespace

std::string KeyText(std::string_view k) {
  bool bare = !k.empty() && k.size() <= 64;
  for (char c : k)
    bare = bare && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-');
  return bare ? std::string(k) : Quote(k);
}

std::vector<std::pair<const toml::key*, const toml::node*>> InFileOrder(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (auto&& [k, v] : t) out.emplace_back(&k, &v);
  auto at = [](const auto& e) {
    const toml::source_position p = e.first->source().begin;
    return std::make_pair(p.line, p.column);
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const auto& a, const auto& b) { return at(a) < at(b); });
  return out;
}

Status ReadText(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                size_t max, const char* what, std::string* out) {
  const auto* s = v.as_string();
  if (s == nullptr) return ck.Error(key, line, DescribeToml(v) + " is not a string (" + what + ")");
  const std::string& text = s->get();
  if (text.find('\0') != std::string::npos)
    return ck.Error(key, line, DescribeToml(v) + " contains a NUL byte (" + what + ")");
  if (text.size() > max)
    return ck.Error(key, line,
                    "a value of " + std::to_string(text.size()) + " bytes is over the limit of " +
                        std::to_string(max) + " bytes");
  *out = text;
  return Status::Ok();
}

Status ReadCommandLine(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                       std::string* out) {
  std::string text;
  if (Status s = ReadText(ck, key, line, v, kMaxExecString, "use a shell command line", &text);
      !s.ok())
    return s;
  if (text.find_first_not_of(" \t\n") == std::string::npos)
    return ck.Error(key, line, DescribeToml(v) + " is empty (use a shell command line)");
  *out = std::move(text);
  return Status::Ok();
}

Status ReadArgv(const TomlChecker& ck, const std::string& key, int line, const toml::node& v,
                std::vector<std::string>* out) {
  const char* help =
      "use an array of strings, the program first, e.g. [\"/usr/bin/rsync\", \"-a\"]";
  const auto* a = v.as_array();
  if (a == nullptr) return ck.Error(key, line, DescribeToml(v) + " is not an array (" + help + ")");
  if (a->empty()) return ck.Error(key, line, "the array is empty (" + std::string(help) + ")");
  if (a->size() > kMaxArgvCount)
    return ck.Error(key, line,
                    std::to_string(a->size()) + " arguments are over the limit of " +
                        std::to_string(kMaxArgvCount));
  std::vector<std::string> argv;
  size_t total = 0;
  for (const toml::node& item : *a) {
    const std::string item_key = key + "[" + std::to_string(argv.size()) + "]";
    std::string arg;
    if (Status s = ReadText(ck, item_key, line, item, kMaxExecString, help, &arg); !s.ok())
      return s;
    total += arg.size() + 1;
    if (total > kMaxArgvBytes)
      return ck.Error(key, line,
                      "the arguments are over the limit of " + std::to_string(kMaxArgvBytes) +
                          " bytes together");
    argv.push_back(std::move(arg));
  }
  if (argv[0].empty())
    return ck.Error(key + "[0]", line, "the program is \"\" (use a program name or path)");
  *out = std::move(argv);
  return Status::Ok();
}

bool IsRetryKey(std::string_view name) {
  return name == "retries" || name == "backoff" || name == "retry_on_exit" ||
         name == "no_retry_on_exit";
}

Status ReadRetryKey(const TomlChecker& ck, std::string_view name, const std::string& key, int line,
                    const toml::node& v, RetryOverrides* r) {
  if (name == "backoff") return ReadBackoff(ck, key, line, v, r);
  if (name == "retries") {
    int64_t n = 0;
    Status s = ck.Int(key, line, v, 0, kMaxRetries, &n);
    if (s.ok()) r->retries = static_cast<int>(n);
    return s;
  }
  std::vector<int> codes;
  Status s = ck.ExitCodes(key, line, v, &codes);
  if (!s.ok()) return s;
  if (name == "retry_on_exit") {
    r->retry_on_exit = std::move(codes);
  } else {
    r->no_retry_on_exit = std::move(codes);
  }
  return Status::Ok();
}

}  // namespace tq
