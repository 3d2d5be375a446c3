#include "core/jobs/crontab_syntax.h"

#include <array>
#include <vector>

#include "core/cron/cron_expr.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// What isspace() accepts in the C locale: cron's parser uses it around assignments.
bool IsCSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
// What separates the time fields, the user and the command.
bool IsBlank(char c) {
  return c == ' ' || c == '\t';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

std::string_view SkipBlanks(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  return s.substr(i);
}

// Cuts the next word (up to a space or tab) off the front of *rest (which starts at it).
std::string_view NextWord(std::string_view* rest) {
  size_t end = 0;
  while (end < rest->size() && !IsBlank((*rest)[end])) ++end;
  std::string_view word = rest->substr(0, end);
  *rest = SkipBlanks(rest->substr(end));
  return word;
}

constexpr std::array<const char*, 5> kFieldNames = {"minute", "hour", "day-of-month", "month",
                                                    "day-of-week"};
constexpr std::array<const char*, 8> kMacros = {"@reboot", "@yearly", "@annually", "@monthly",
                                                "@weekly", "@daily",  "@midnight", "@hourly"};

// The part of the field grammar that cron knows and tq extends: numbers, `*`, ranges, lists,
// steps, and names in the month and day-of-week fields. ParseCron checks the values.
Status CheckCrontabField(int index, std::string_view field) {
  const bool names = index >= 3;
  size_t start = 0;
  for (size_t i = 0; i <= field.size(); ++i) {
    if (i < field.size() && field[i] != ',' && field[i] != '-' && field[i] != '/') continue;
    const std::string_view atom = field.substr(start, i - start);
    start = i + 1;
    bool ok = atom == "*" || atom.empty();  // empty elements: ParseCron says what is wrong
    bool digits = !atom.empty(), letters = !atom.empty();
    for (char c : atom) {
      digits = digits && IsDigit(c);
      letters = letters && IsAlpha(c);
    }
    ok = ok || digits || (names && letters);
    if (!ok) {
      return Status::Invalid(
          kFieldNames[index],
          std::string(kFieldNames[index]) + " " + Quote(field) +
              ": not crontab syntax (cron knows numbers, *, ranges, lists and steps" +
              (names ? ", and names" : "") +
              "; tq's L, W, # and ? are for job files written by hand)");
    }
  }
  return Status::Ok();
}

// cron's rule for `%` in a command (SPEC 7): the first unescaped one ends the command and the
// rest is stdin; there every unescaped one is a newline. A backslash escapes only a `%`.
void SplitPercent(std::string_view text, CrontabEntry* entry) {
  std::string command;
  size_t i = 0;
  bool escaped = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (escaped) {
      if (c == '%')
        command.back() = '%';  // the backslash becomes the percent sign
      else
        command += c;
      escaped = false;
      continue;
    }
    if (c == '%') break;
    escaped = c == '\\';
    command += c;
  }
  entry->command = std::move(command);
  if (i == text.size()) return;
  std::string input;
  escaped = false;
  for (size_t k = i + 1; k < text.size(); ++k) {
    char c = text[k];
    if (escaped) {
      if (c != '%') input += '\\';
    } else if (c == '%') {
      c = '\n';
    }
    escaped = c == '\\';
    if (!escaped) input += c;
  }
  if (escaped) input += '\\';
  entry->stdin_data = std::move(input);
}

// A user name as useradd accepts it by default (plus upper case), at most 32 characters.
bool ValidUserName(std::string_view user) {
  if (user.empty() || user.size() > 32 || user[0] == '-' || user[0] == '.') return false;
  for (size_t i = 0; i < user.size(); ++i) {
    const char c = user[i];
    const bool last_dollar = c == '$' && i + 1 == user.size();  // Samba machine accounts
    if (!(IsDigit(c) || IsAlpha(c) || c == '_' || c == '-' || c == '.' || last_dollar))
      return false;
  }
  return true;
}

// A word made only of what time fields are made of: `* * * * * * cmd` has six fields.
bool LooksLikeTimeField(std::string_view word) {
  bool value = false;
  for (char c : word) {
    if (IsDigit(c) || c == '*')
      value = true;
    else if (c != ',' && c != '-' && c != '/')
      return false;
  }
  return value;
}

}  // namespace

std::optional<CrontabAssignment> ParseCrontabAssignment(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && IsCSpace(line[i])) ++i;
  // The name: quoted (no `=` inside), or up to white space or `=`.
  CrontabAssignment a;
  if (i < line.size() && (line[i] == '"' || line[i] == '\'')) {
    const char quote = line[i++];
    while (i < line.size() && line[i] != quote) {
      if (line[i] == '=') return std::nullopt;
      a.name += line[i++];
    }
    if (i == line.size()) return std::nullopt;
    ++i;
  } else {
    while (i < line.size() && !IsCSpace(line[i]) && line[i] != '=') a.name += line[i++];
  }
  while (i < line.size() && IsCSpace(line[i])) ++i;
  if (i == line.size() || line[i] != '=' || a.name.empty()) return std::nullopt;
  ++i;
  while (i < line.size() && IsCSpace(line[i])) ++i;
  if (i < line.size() && (line[i] == '"' || line[i] == '\'')) {
    const char quote = line[i++];
    const size_t close = line.find(quote, i);
    if (close == std::string_view::npos) return std::nullopt;
    a.value = line.substr(i, close - i);
    for (size_t k = close + 1; k < line.size(); ++k)
      if (!IsCSpace(line[k])) return std::nullopt;
    return a;
  }
  size_t end = line.size();
  while (end > i && IsCSpace(line[end - 1])) --end;
  a.value = line.substr(i, end - i);
  return a;
}

Result<CrontabEntry> ParseCrontabEntry(std::string_view line, CrontabFormat format) {
  std::string_view rest = SkipBlanks(line);
  CrontabEntry entry;
  if (!rest.empty() && rest[0] == '@') {
    const std::string_view macro = NextWord(&rest);
    bool known = false;
    for (const char* m : kMacros) known = known || macro == m;
    if (!known) {
      return Status::Invalid("schedule",
                             "schedule " + Quote(macro) +
                                 ": not a crontab macro (cron knows @reboot, @yearly, @annually, "
                                 "@monthly, @weekly, @daily, @midnight and @hourly)");
    }
    entry.schedule = macro;
  } else {
    for (int i = 0; i < 5; ++i) {
      const std::string_view field = NextWord(&rest);
      if (field.empty()) {
        return Status::Invalid("schedule", "expected 5 time fields and a command, found " +
                                               std::to_string(i) + " field" + (i == 1 ? "" : "s"));
      }
      if (Status s = CheckCrontabField(i, field); !s.ok()) return s;
      entry.schedule += (i == 0 ? "" : " ") + std::string(field);
    }
  }
  if (Result<CronExpr> expr = ParseCron(entry.schedule); !expr.ok()) return expr.status();

  if (format == CrontabFormat::kSystem) {
    const std::string_view user = NextWord(&rest);
    if (user.empty())
      return Status::Invalid("user", "expected a user name after the schedule, found nothing");
    if (!ValidUserName(user)) {
      return Status::Invalid("user", "the user column " + Quote(user) +
                                         " is not a user name (a user crontab? import it with "
                                         "--user-format)");
    }
    entry.user = user;
  }
  if (rest.empty()) return Status::Invalid("command", "expected a command after the schedule");
  std::string_view first = rest;
  if (LooksLikeTimeField(NextWord(&first))) {
    return Status::Invalid(
        "command", "the command starts with " + Quote(rest.substr(0, rest.find_first_of(" \t"))) +
                       ", a sixth time field? (crontab schedules have five fields; "
                       "cron would run it as a command)");
  }
  SplitPercent(rest, &entry);
  if (SkipBlanks(entry.command).empty())
    return Status::Invalid("command", "the command before \"%\" is empty");
  return entry;
}

}  // namespace tq
