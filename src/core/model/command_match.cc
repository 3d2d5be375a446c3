#include "core/model/command_match.h"

#include <algorithm>

namespace tq {

namespace {

char Lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// True when `needle` occurs in `hay`, ignoring ASCII case.
bool Contains(std::string_view hay, std::string_view needle) {
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                     [](char a, char b) { return Lower(a) == Lower(b); }) != hay.end();
}

// argv joined by spaces (what tq list shows), or the shell text.
bool CommandHas(const std::vector<std::string>& argv, const std::optional<std::string>& shell,
                std::string_view needle) {
  if (shell && Contains(*shell, needle)) return true;
  std::string joined;
  for (const std::string& arg : argv) {
    if (!joined.empty()) joined += ' ';
    joined += arg;
  }
  return Contains(joined, needle);
}

}  // namespace

bool CommandContains(const TaskSpec& spec, std::string_view needle) {
  if (needle.empty() || CommandHas(spec.argv, spec.shell, needle)) return true;
  return std::any_of(spec.stages.begin(), spec.stages.end(), [&](const StageSpec& s) {
    return Contains(s.name, needle) || CommandHas(s.argv, s.shell, needle);
  });
}

}  // namespace tq
