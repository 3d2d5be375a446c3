// Reading one crontab line the way cron(8) does (Vixie cron as Debian ships it, with cronie's
// additions): variable assignments, the five time fields or a macro, the user column of system
// crontabs, and `%` in commands. Used by `tq cron import` (core/jobs/crontab_import.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/jobs/crontab_import.h"
#include "core/model/status.h"

namespace tq {

/// A variable assignment line: `NAME = value`, spaces around `=` optional, name and value each
/// optionally in matching single or double quotes.
struct CrontabAssignment {
  std::string name;
  std::string value;
};

/// Reads `line` (not blank, not a comment) as cron's load_env does: the name ends at white space
/// or `=`; an unquoted value is the rest of the line without its trailing white space; a quoted
/// value ends at its closing quote, after which only white space may follow. nullopt when the
/// line is not an assignment, so cron reads it as a job line. `NAME=` gives an empty value.
std::optional<CrontabAssignment> ParseCrontabAssignment(std::string_view line);

/// A job line split as cron splits it.
struct CrontabEntry {
  std::string schedule;  ///< the macro (`@daily`) or the five fields joined by single spaces
  std::string user;      ///< the user column (system format only)
  /// The command up to the first unescaped `%`, with `\%` made `%` (other backslashes stay).
  std::string command;
  /// What follows that `%`: the job's standard input, with each further unescaped `%` a newline
  /// and `\%` a `%`. nullopt when the command has no unescaped `%`.
  std::optional<std::string> stdin_data;
};

/// Splits a job line (not blank, not a comment, not an assignment): the schedule (five fields
/// separated by spaces or tabs, or one of cron's macros `@reboot @yearly @annually @monthly
/// @weekly @daily @midnight @hourly`), for kSystem the user, then the command (the rest of the
/// line after the white space that follows). Refuses with kInvalid and a message that says what
/// is wrong: too few fields, a schedule ParseCron refuses or one that uses tq's extensions (`L`,
/// `W`, `#`, `?`, `@every`, which cron does not know), a user column that is not a user name, an
/// empty command, and a command that starts with a sixth time field (`* * * * * * cmd`: cron
/// would run `* cmd`).
Result<CrontabEntry> ParseCrontabEntry(std::string_view line, CrontabFormat format);

/// Calls `line(number, text)` for each line of `text` (without its newline), numbered from 1.
template <typename F>
void ForEachCrontabLine(std::string_view text, F line) {
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    line(++number, text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace tq
