#include "core/config/toml_check.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "core/config/config.h"
#include "core/config/toml_syntax.h"
#include "core/model/duration.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"

namespace tq {

namespace {
constexpr const char* kAccountNameHelp =
    "a user or group name (1 to 256 characters from A-Z a-z 0-9 _ . -, not starting with - or ., "
    "optionally ending in $)";
constexpr size_t kMaxAccountNames = 65536;

// Line `number` of `text` (the first is 1), without its line break (\n or \r\n); "" past the
// end.
std::string_view LineOf(std::string_view text, size_t number) {
  for (size_t at = 0, n = 1; at <= text.size(); ++n) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (n == number) {
      const std::string_view line = text.substr(at, end - at);
      return line.ends_with('\r') ? line.substr(0, line.size() - 1) : line;
    }
    at = end + 1;
  }
  return {};
}
}  // namespace

Result<toml::table> ParseTomlText(std::string_view text, const std::string& source) {
  auto syntax_error = [&](const toml::parse_error& e) {
    const size_t line = e.source().begin.line;
    return Status(ErrorCode::kConfig, "",
                  source + ":" + std::to_string(line) + ": " +
                      PlainTomlError(e.description(), LineOf(text, line)));
  };
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    return syntax_error(e);
  }
#else
  toml::parse_result parsed = toml::parse(text, std::string_view(source));
  if (!parsed) return syntax_error(parsed.error());
  return std::move(parsed).table();
#endif
}

std::string DescribeToml(const toml::node& n) {
  if (const auto* i = n.as_integer()) return std::to_string(i->get());
  if (const auto* f = n.as_floating_point()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", f->get());
    return buf;
  }
  if (const auto* b = n.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* s = n.as_string()) return Quote(s->get());
  if (n.is_table()) return "a table";
  if (n.is_array()) return "an array";
  if (n.is_date_time()) return "a date-time";
  if (n.is_date()) return "a date";
  if (n.is_time()) return "a time";
  return "a value";
}

int TomlLine(const toml::key& k, const toml::node& v) {
  int line = static_cast<int>(k.source().begin.line);
  return line > 0 ? line : static_cast<int>(v.source().begin.line);
}

Status TomlChecker::Error(const std::string& key, int line, const std::string& reason) const {
  return Status(ErrorCode::kConfig, key,
                source_ + ":" + std::to_string(line) + ": " + key + ": " + reason);
}

Status TomlChecker::Wrap(const std::string& key, int line, const Status& s) const {
  return Status(ErrorCode::kConfig, key, source_ + ":" + std::to_string(line) + ": " + s.message());
}

Status TomlChecker::Int(const std::string& key, int line, const toml::node& v, int64_t lo,
                        int64_t hi, int64_t* out) const {
  std::string help = "use an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const auto* i = v.as_integer();
  if (i == nullptr) return Error(key, line, DescribeToml(v) + " is not an integer (" + help + ")");
  if (i->get() < lo || i->get() > hi) {
    return Error(key, line, DescribeToml(v) + " is out of range (" + help + ")");
  }
  *out = i->get();
  return Status::Ok();
}

Status TomlChecker::Duration(const std::string& key, int line, const toml::node& v,
                             int64_t* out_ms) const {
  std::string text;
  if (const auto* i = v.as_integer()) {
    text = std::to_string(i->get());  // a bare integer is seconds, as on the command line
  } else if (const auto* str = v.as_string()) {
    text = str->get();
  } else {
    return Error(key, line,
                 DescribeToml(v) + " is not a duration (use a string like \"10s\" or \"1m30s\")");
  }
  Result<int64_t> r = ParseDuration(text, key);
  if (!r.ok()) return Wrap(key, line, r.status());
  *out_ms = *r;
  return Status::Ok();
}

Status TomlChecker::Bool(const std::string& key, int line, const toml::node& v, bool* out) const {
  const auto* b = v.as_boolean();
  if (b == nullptr) return Error(key, line, DescribeToml(v) + " is not true or false");
  *out = b->get();
  return Status::Ok();
}

Status TomlChecker::ExitCodes(const std::string& key, int line, const toml::node& v,
                              std::vector<int>* out) const {
  const auto* a = v.as_array();
  if (a == nullptr)
    return Error(key, line, DescribeToml(v) + " is not an array (use exit codes, e.g. [75])");
  std::vector<int> codes;
  for (const toml::node& item : *a) {
    int64_t code = 0;
    Status s = Int(key, line, item, 0, 255, &code);
    if (!s.ok()) return s;
    codes.push_back(static_cast<int>(code));
  }
  *out = std::move(codes);
  return Status::Ok();
}

Status TomlChecker::AccountName(const std::string& key, int line, const toml::node& v,
                                std::string* out) const {
  const auto* s = v.as_string();
  if (s == nullptr || !ValidAccountName(s->get()))
    return Error(key, line, DescribeToml(v) + " is not " + kAccountNameHelp);
  *out = s->get();
  return Status::Ok();
}

Status TomlChecker::AccountNames(const std::string& key, int line, const toml::node& v,
                                 std::vector<std::string>* out) const {
  const auto* a = v.as_array();
  if (a == nullptr)
    return Error(key, line, DescribeToml(v) + " is not an array (use e.g. [\"alice\", \"bob\"])");
  if (a->size() > kMaxAccountNames)
    return Error(key, line,
                 "names " + std::to_string(a->size()) + " users (at most " +
                     std::to_string(kMaxAccountNames) + ")");
  std::vector<std::string> names;
  for (const toml::node& item : *a) {
    std::string name;
    const int item_line =
        item.source().begin.line > 0 ? static_cast<int>(item.source().begin.line) : line;
    Status st = AccountName(key, item_line, item, &name);
    if (!st.ok()) return st;
    names.push_back(std::move(name));
  }
  *out = std::move(names);
  return Status::Ok();
}

Status TomlChecker::Resource(const std::string& key, std::string_view name, int line,
                             const toml::node& v, Resources* out) const {
  constexpr int64_t kMaxCount = 2147483647;
  constexpr int64_t kMinMemoryMax = 1 << 20;  // below, a shell alone would not start
  int64_t n = 0;
  Status s;
  if (name == "nice") {
    s = Int(key, line, v, -20, 19, &n);
    if (s.ok()) out->nice = static_cast<int>(n);
  } else if (name == "ionice") {
    const auto* str = v.as_string();
    if (str == nullptr || !IoPriority(str->get()))
      return Error(key, line,
                   DescribeToml(v) +
                       " is not an I/O class (use idle, best-effort or realtime, optionally "
                       "with a level :0 (first) to :7, e.g. \"best-effort:7\")");
    out->ionice = str->get();
  } else if (name == "nofile" || name == "nproc") {
    s = Int(key, line, v, 1, kMaxCount, &n);
    if (s.ok()) (name == "nofile" ? out->nofile : out->nproc) = n;
  } else if (name == "core" || name == "memory_max") {
    const int64_t min = name == "core" ? 0 : kMinMemoryMax;
    if (const auto* str = v.as_string()) {
      Result<int64_t> r = ParseSize(str->get(), key);
      if (!r.ok()) return Wrap(key, line, r.status());
      n = *r;
      if (n < min) return Error(key, line, DescribeToml(v) + " is too small (use at least 1MiB)");
    } else {
      s = Int(key, line, v, min, std::numeric_limits<int64_t>::max(), &n);
    }
    if (s.ok()) (name == "core" ? out->core : out->memory_max) = n;
  } else if (name == "cpu_weight") {
    s = Int(key, line, v, 1, 10000, &n);
    if (s.ok()) out->cpu_weight = static_cast<int>(n);
  } else if (name == "pids_max") {
    s = Int(key, line, v, 1, kMaxCount, &n);
    if (s.ok()) out->pids_max = n;
  } else {
    return Error(key, line, std::string("not one of ") + kResourceKeys);
  }
  return s;
}

Status TomlChecker::Path(const std::string& key, int line, const toml::node& v, size_t max_len,
                         std::string* out) const {
  const auto* s = v.as_string();
  if (s == nullptr) {
    return Error(key, line, DescribeToml(v) + " is not a string (use an absolute path)");
  }
  const std::string& p = s->get();
  if (!p.empty() && p[0] != '/') {
    return Error(key, line,
                 DescribeToml(v) +
                     " is not an absolute path (use a path from /, or "
                     "leave it out for the default)");
  }
  if (p.find('\0') != std::string::npos) {
    return Error(key, line, DescribeToml(v) + " contains a NUL byte (use a plain path)");
  }
  if (p.size() > max_len) {
    return Error(key, line,
                 DescribeToml(v) + " is " + std::to_string(p.size()) + " bytes long (at most " +
                     std::to_string(max_len) + ")");
  }
  *out = p;
  return Status::Ok();
}

}  // namespace tq
