#include "core/jobs/crontab_format.h"

#include "core/jobs/crontab_syntax.h"

namespace tq {

CrontabFormatGuess GuessCrontabFormat(std::string_view text, const CrontabLookups& lookups) {
  CrontabFormatGuess guess;
  std::string path(kCronDefaultPath);
  ForEachCrontabLine(text, [&](int number, std::string_view line) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos || line[start] == '#') return;
    if (std::optional<CrontabAssignment> a = ParseCrontabAssignment(line)) {
      if (a->name == "PATH") path = a->value;
      return;
    }
    Result<CrontabEntry> entry = ParseCrontabEntry(line, CrontabFormat::kUser);
    if (!entry.ok()) return;
    ++guess.entries;
    const std::string_view command = entry->command;
    const size_t end = command.find_first_of(" \t");
    if (end == std::string_view::npos || command.find_first_not_of(" \t", end) == std::string::npos)
      return;  // nothing follows the word: it can only be the command
    const std::string_view word = command.substr(0, end);
    if (lookups.is_account(word) && !lookups.is_command(word, path))
      guess.account_lines.emplace(number, path);
  });
  const int accounts = static_cast<int>(guess.account_lines.size());
  if (accounts >= 2 && 3 * accounts >= 2 * guess.entries) guess.format = CrontabFormat::kSystem;
  return guess;
}

}  // namespace tq
