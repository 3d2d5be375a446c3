#include "core/policy/context_env.h"

#include <algorithm>
#include <map>

#include "core/model/quote.h"

namespace tq {

namespace {

bool IsBlank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view SkipBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  return s;
}

bool IsVariableName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (const char c : name)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  return true;
}

// Why the line `name`=`value` is refused, or "" when it is fine.
std::string Refusal(std::string_view name, std::string_view value) {
  if (name.size() > kMaxContextEnvNameBytes)
    return "a name of " + std::to_string(name.size()) + " bytes is longer than " +
           std::to_string(kMaxContextEnvNameBytes);  // not quoted: a refusal stays short
  if (!IsVariableName(name)) return Quote(name) + " is not a variable name";
  if (name.substr(0, 3) == "TQ_") return Quote(name) + " is tq's own";
  if (value.size() > kMaxContextEnvValueBytes)
    return "the value of " + Quote(name) + " is " + std::to_string(value.size()) +
           " bytes, over the limit of " + std::to_string(kMaxContextEnvValueBytes);
  if (value.find('\0') != std::string_view::npos)
    return "the value of " + Quote(name) + " holds a NUL byte";
  return "";
}

}  // namespace

ContextEnv ParseContextEnv(std::string_view text) {
  ContextEnv env;
  std::map<std::string, size_t, std::less<>> index;  // name -> its place in entries
  size_t refusals = 0;
  const auto refuse = [&](size_t number, const std::string& why) {
    if (++refusals <= kMaxContextEnvRefusals)
      env.refused.push_back("line " + std::to_string(number) + ": " + why);
  };
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = SkipBlanks(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.substr(0, 6) == "export" && line.size() > 6 && IsBlank(line[6]))
      line = SkipBlanks(line.substr(6));
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) {
      refuse(number, "no '=' (NAME=VALUE expected)");
      continue;
    }
    const std::string_view name = line.substr(0, eq);
    const std::string_view value = line.substr(eq + 1);
    if (std::string why = Refusal(name, value); !why.empty()) {
      refuse(number, why);
      continue;
    }
    const auto found = index.find(name);
    if (found != index.end()) {
      env.entries[found->second] = std::string(line);
      continue;
    }
    if (env.entries.size() == kMaxContextEnvEntries) {
      refuse(number, Quote(name) + " is past the limit of " +
                         std::to_string(kMaxContextEnvEntries) + " entries");
      continue;
    }
    index.emplace(std::string(name), env.entries.size());
    env.entries.emplace_back(line);
  }
  if (refusals > kMaxContextEnvRefusals)
    env.refused.push_back("and " + std::to_string(refusals - kMaxContextEnvRefusals) +
                          " more lines refused");
  return env;
}

}  // namespace tq
