#include "core/jobs/crontab_import.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "core/cron/cron_zone.h"
#include "core/jobs/crontab_format.h"
#include "core/jobs/crontab_job_name.h"
#include "core/jobs/crontab_syntax.h"
#include "core/jobs/job_file.h"
#include "core/model/bytes.h"
#include "core/model/duration.h"
#include "core/model/limits.h"
#include "core/model/notify.h"
#include "core/model/quote.h"

namespace tq {

namespace {

// The most RANDOM_DELAY (cronie, in minutes) may say: a day; more is surely a mistake.
constexpr int64_t kMaxRandomDelayMinutes = 24 * 60;

bool IsControl(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

// A TOML string holding `s` (valid UTF-8): basic, or literal when that avoids escaping.
std::string TomlString(std::string_view s) {
  bool needs_escape = false, literal_ok = true;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') needs_escape = true;
    if (c == '\'' || IsControl(c)) literal_ok = false;
  }
  if (needs_escape && literal_ok) return "'" + std::string(s) + "'";
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (IsControl(c)) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Text that may follow `#` in TOML: valid UTF-8 with control characters (but tab) as \xNN;
// anything else is shown as Quote shows it.
std::string CommentText(std::string_view s) {
  if (!IsValidUtf8(s)) return Quote(s);
  std::string out;
  for (unsigned char c : s) {
    if (IsControl(c) && c != '\t') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A variable name tq can put in a job's env: a portable shell name (a bare TOML key too).
bool ValidEnvName(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return true;
}

// What the crontab's variables so far give each job that follows them.
struct Settings {
  std::vector<std::pair<std::string, std::string>> env;  // in the order they were first set
  std::string shell, timezone, cwd, mailto;
  int64_t random_delay_ms = 0;
  size_t env_bytes = 0;  // NAME=VALUE and a NUL each, as execve counts them
};

struct ImportedJob {
  int line = 0;
  std::string name;
  CrontabEntry entry;
  std::shared_ptr<const Settings> settings;  // shared by the jobs between two assignments
};

// Walks the crontab line by line, collecting the output in crontab order. Never holds much more
// than a job file's worth: once the output is sure to pass kMaxJobFileBytes it stops.
class Importer {
 public:
  /// `guess`: how the format was decided, when it was guessed (nullptr when it was given).
  /// `is_account`: looks up the users of a system crontab (none: they are not looked up).
  Importer(CrontabFormat format, const CrontabFormatGuess* guess,
           std::function<bool(std::string_view)> is_account)
      : format_(format), guess_(guess), is_account_(std::move(is_account)) {}

  void Line(int number, std::string_view line) {
    if (too_large_) return;
    if (line.find('\0') != std::string_view::npos)
      return Problem(number, "the line holds a NUL byte", line);
    if (!IsValidUtf8(line)) return Problem(number, "the line is not valid UTF-8", line);
    if (!line.empty() && line.back() == '\r') {
      return Problem(number,
                     "the line ends in a carriage return (DOS line ends? convert the file with "
                     "dos2unix; cron would run the command with it)",
                     line);
    }
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) return Blank();
    if (line[start] == '#') return Comment(CommentText(line.substr(start)));
    if (std::optional<CrontabAssignment> a = ParseCrontabAssignment(line))
      return Assign(number, *a, line);
    if (guess_ != nullptr) {
      if (std::optional<std::string> why = GuessedWrong(number, line))
        return Problem(number, *why, line);
    }
    Result<CrontabEntry> entry = ParseCrontabEntry(line, format_);
    if (!entry.ok()) return Problem(number, entry.status().message(), line);
    if (format_ == CrontabFormat::kSystem && is_account_ && !is_account_(entry->user) &&
        missing_users_.insert(entry->user).second)
      Warn(number, "the user " + Quote(entry->user) +
                       " does not exist on this machine: tqd refuses its jobs until it does");
    if (entry->stdin_data)
      Warn(number,
           "an unescaped \"%\" ends the command: the rest of the line is its standard input, "
           "as cron does (write \\% for a literal %)");
    Job(number, std::move(*entry), line);
  }

  /// Something converted faithfully that may not be what the author meant.
  void Warn(int number, std::string message) { warnings_.push_back({number, std::move(message)}); }

  // Stops the import: the output would be larger than a job file may be.
  void TooLarge(const std::string& why) {
    too_large_ = true;
    problems_.push_back({0, why + ": more than tqd reads in one job file (" +
                                std::to_string(kMaxJobFileBytes) + " bytes); split the crontab"});
  }

  CrontabImport Finish(const std::string& source_name) {
    std::optional<std::string> toml;
    if (!too_large_) toml = Render(source_name);
    if (!toml) {
      if (!too_large_) TooLarge("the converted file would be too large");
      toml = Header(source_name) + "# NOT CONVERTED: " + problems_.back().message + "\n";
    }
    return {std::move(*toml), std::move(problems_), std::move(warnings_)};
  }

 private:
  // Why a guessed format may be wrong for this entry line: a user crontab's entry that names
  // an account, a system crontab's that names none; nullopt when it agrees with the guess (or
  // is no entry GuessCrontabFormat counted: its own problem is reported).
  std::optional<std::string> GuessedWrong(int number, std::string_view line) const {
    Result<CrontabEntry> entry = ParseCrontabEntry(line, CrontabFormat::kUser);
    if (!entry.ok()) return std::nullopt;
    auto account = guess_->account_lines.find(number);
    if (format_ == CrontabFormat::kUser && account != guess_->account_lines.end()) {
      const std::string word = entry->command.substr(0, entry->command.find_first_of(" \t"));
      return "the command starts with " + Quote(word) +
             ", an account's name, and no command of that name is on the crontab's PATH (" +
             account->second +
             "): a line of a system crontab? Import the file with --system, or with "
             "--user-format to convert it as cron would run it";
    }
    if (format_ == CrontabFormat::kSystem && account == guess_->account_lines.end()) {
      return "the file is read as a system crontab (most entries name an account after the "
             "schedule), but this entry names none: import it with --system or --user-format to "
             "say which it is";
    }
    return std::nullopt;
  }

  // A line that cannot be converted: reported, and kept as a comment.
  void Problem(int number, const std::string& reason, std::string_view line) {
    problems_.push_back({number, reason});
    Comment("# line " + std::to_string(number) + " NOT CONVERTED: " + CommentText(reason));
    Comment("#   " + CommentText(line));
  }

  // One item of output: lines of text, or a job.
  struct Item {
    std::string text;
    int job = -1;
  };

  void Blank() {
    if (!items_.empty() && items_.back().job < 0 && items_.back().text.empty()) return;
    items_.push_back({""});
  }
  void Comment(std::string text) { items_.push_back({std::move(text)}); }

  void Assign(int number, const CrontabAssignment& a, std::string_view line) {
    if (!ValidEnvName(a.name)) {
      return Problem(number,
                     "the variable name " + Quote(a.name) +
                         " is not one tq passes (letters, digits and _, not starting with a "
                         "digit)",
                     line);
    }
    const std::string note =
        "# line " + std::to_string(number) + ": " + CommentText(a.name + "=" + a.value) + ": ";
    if (a.name == "LOGNAME" || a.name == "USER")
      return Comment(note + "ignored, as cron ignores it (it is always the job's user)");
    if (a.name.size() + a.value.size() + 2 > kMaxArgStrlen)
      return Problem(number, "the variable is longer than an environment entry may be", line);
    Settings next = {};  // only the field the variable sets is used
    if (a.name == "SHELL" || a.name == "HOME") {
      if (a.value.empty() || a.value[0] != '/' || a.value.size() > kMaxCwdBytes) {
        return Problem(number,
                       a.name + " " + Quote(a.value) + " is not an absolute path of at most " +
                           std::to_string(kMaxCwdBytes) + " bytes",
                       line);
      }
    } else if (a.name == "CRON_TZ" && !a.value.empty()) {
      Result<TimeZone> zone = LoadTimeZone(a.value, "CRON_TZ");
      if (!zone.ok()) return Problem(number, zone.status().message(), line);
    } else if (a.name == "RANDOM_DELAY") {
      bool digits = !a.value.empty() && a.value.size() <= 6;
      for (char c : a.value) {
        digits = digits && c >= '0' && c <= '9';
        if (digits) next.random_delay_ms = next.random_delay_ms * 10 + (c - '0');
      }
      if (!digits || next.random_delay_ms > kMaxRandomDelayMinutes) {
        return Problem(number,
                       "RANDOM_DELAY " + Quote(a.value) + " is not a number of minutes 0.." +
                           std::to_string(kMaxRandomDelayMinutes),
                       line);
      }
      Comment(note + "random_delay (cronie picks one delay per daemon start, tq one per firing)");
    } else if (a.name == "MAILTO") {
      if (Status st = CheckMailto("MAILTO", a.value); !st.ok())
        return Problem(number, st.message(), line);
      Comment(note + (a.value.empty()
                          ? "no mail: the jobs that follow mail nothing, as in cron"
                          : "mailto, with mail_on = \"output\": a run that printed anything is "
                            "mailed"));
    }

    // Like cron, every variable is also in the environment of the jobs that follow.
    auto it = std::find_if(settings_.env.begin(), settings_.env.end(),
                           [&](const auto& e) { return e.first == a.name; });
    if (it != settings_.env.end() && it->second == a.value) return;  // nothing changes
    snapshot_.reset();  // the jobs from here on see other settings
    if (a.name == "SHELL") settings_.shell = a.value;
    if (a.name == "HOME") settings_.cwd = a.value;
    if (a.name == "CRON_TZ") settings_.timezone = a.value;
    if (a.name == "MAILTO") settings_.mailto = a.value;
    if (a.name == "RANDOM_DELAY") settings_.random_delay_ms = next.random_delay_ms * 60 * 1000;
    if (it != settings_.env.end()) {
      settings_.env_bytes = settings_.env_bytes - it->second.size() + a.value.size();
      it->second = a.value;
      return;
    }
    settings_.env.emplace_back(a.name, a.value);
    settings_.env_bytes += a.name.size() + a.value.size() + 2;
  }

  void Job(int number, CrontabEntry entry, std::string_view line) {
    if (entry.command.size() + 1 > kMaxArgStrlen)
      return Problem(number, "the command is longer than tq takes (128 KiB)", line);
    if (entry.stdin_data && entry.stdin_data->size() > kMaxStdinBytes)
      return Problem(number, "the input after \"%\" is longer than tq takes (8 MiB)", line);
    if (settings_.env_bytes > kMaxEnvBytes)
      return Problem(number, "the crontab's variables are more than an environment takes", line);
    if (!snapshot_) {
      snapshot_ = std::make_shared<const Settings>(settings_);
      // Jobs with different settings each carry theirs: past this the output is too large.
      snapshot_bytes_ += settings_.env_bytes;
      if (snapshot_bytes_ > kMaxJobFileBytes) return TooLarge("the variables are too large");
    }
    jobs_.push_back(
        {number, UniqueName(JobNameFromCommand(entry.command)), std::move(entry), snapshot_});
    items_.push_back({"", static_cast<int>(jobs_.size() - 1)});
  }

  // `base`, or `base-2`, `base-3`... cut so that it stays within 64 characters.
  std::string UniqueName(const std::string& base) {
    if (names_.insert(base).second) return base;
    int& n = next_suffix_[base];  // where the search for this base goes on
    n = std::max(n, 2);
    while (true) {
      const std::string suffix = "-" + std::to_string(n++);
      std::string name = base.substr(0, 64 - suffix.size()) + suffix;
      if (names_.insert(name).second) return name;
    }
  }

  std::string Header(const std::string& source_name) const {
    const size_t problems = problems_.size();
    std::string h = "# Converted by `tq cron import` from " + CommentText(source_name) + " (" +
                    (format_ == CrontabFormat::kSystem ? "a system crontab, with a user column"
                                                       : "a user crontab") +
                    ").\n";
    if (problems > 0) {
      h += "# " + std::to_string(problems) +
           " line(s) could not be converted: see NOT CONVERTED below.\n";
    }
    h += "# cron starts every firing even while the previous run still runs, and drops the\n"
         "# firings it missed while it was down: overlap = \"allow\" and misfire = \"skip\" keep\n"
         "# that. Delete them for tq's own defaults (no second run while one runs; one catch-up\n"
         "# run after downtime).\n";
    return h;
  }

  // Which settings every job shares: those are written once, in [defaults].
  struct Common {
    bool user = true, shell = true, timezone = true, cwd = true, env = true, delay = true,
         mailto = true;
  };
  Common FindCommon() const {
    Common c;
    for (const ImportedJob& j : jobs_) {
      const ImportedJob& f = jobs_.front();
      c.user = c.user && j.entry.user == f.entry.user;
      if (j.settings == f.settings) continue;
      c.shell = c.shell && j.settings->shell == f.settings->shell;
      c.timezone = c.timezone && j.settings->timezone == f.settings->timezone;
      c.cwd = c.cwd && j.settings->cwd == f.settings->cwd;
      c.env = c.env && j.settings->env == f.settings->env;
      c.delay = c.delay && j.settings->random_delay_ms == f.settings->random_delay_ms;
      c.mailto = c.mailto && j.settings->mailto == f.settings->mailto;
    }
    return c;
  }

  // The settings of `j` that `want` selects, those that differ from tq's defaults.
  static std::string SettingLines(const ImportedJob& j, const Common& want) {
    std::string out;
    const Settings& s = *j.settings;
    if (want.timezone && !s.timezone.empty()) out += "timezone = " + TomlString(s.timezone) + "\n";
    if (want.user && !j.entry.user.empty()) out += "user = " + TomlString(j.entry.user) + "\n";
    if (want.shell && !s.shell.empty()) out += "shell = " + TomlString(s.shell) + "\n";
    if (want.cwd && !s.cwd.empty()) out += "cwd = " + TomlString(s.cwd) + "\n";
    if (want.mailto && !s.mailto.empty())
      out += "mailto = " + TomlString(s.mailto) + "\nmail_on = \"output\"\n";
    if (want.delay && s.random_delay_ms > 0)
      out += "random_delay = " + TomlString(FormatDuration(s.random_delay_ms)) + "\n";
    if (want.env && !s.env.empty()) {
      out += "env = {";
      for (size_t i = 0; i < s.env.size(); ++i) {
        out += (i == 0 ? " " : ", ") + s.env[i].first + " = " + TomlString(s.env[i].second);
      }
      out += " }\n";
    }
    return out;
  }

  // The job file; nullopt when it would pass kMaxJobFileBytes.
  std::optional<std::string> Render(const std::string& source_name) const {
    std::string out = Header(source_name);
    const Common common = jobs_.empty() ? Common{} : FindCommon();
    out += "\n[defaults]\noverlap = \"allow\"\nmisfire = \"skip\"\n";
    if (!jobs_.empty()) out += SettingLines(jobs_.front(), common);
    const Common own{!common.user, !common.shell, !common.timezone, !common.cwd,
                     !common.env,  !common.delay, !common.mailto};
    bool after_block = true;  // the last thing written was a table: set it apart
    for (const Item& item : items_) {
      if (item.job < 0 && item.text.empty()) {
        out += "\n";
        after_block = false;
        continue;
      }
      if (after_block) out += "\n";
      after_block = item.job >= 0;
      if (item.job < 0) {
        out += item.text + "\n";
        continue;
      }
      const ImportedJob& j = jobs_[static_cast<size_t>(item.job)];
      out += "[[job]]  # line " + std::to_string(j.line) + "\n";
      out += "name = " + TomlString(j.name) + "\n";
      out += "schedule = " + TomlString(j.entry.schedule) + "\n";
      out += SettingLines(j, own);
      out += "command = " + TomlString(j.entry.command) + "\n";
      if (j.entry.stdin_data && !j.entry.stdin_data->empty())
        out += "stdin = " + TomlString(*j.entry.stdin_data) + "\n";
      if (out.size() > kMaxJobFileBytes) return std::nullopt;
    }
    if (out.size() > kMaxJobFileBytes) return std::nullopt;
    return out;
  }

  CrontabFormat format_;
  const CrontabFormatGuess* guess_;
  std::function<bool(std::string_view)> is_account_;
  std::set<std::string> missing_users_;  // each warned of once
  Settings settings_;
  std::shared_ptr<const Settings> snapshot_;  // settings_ as the last job got them
  size_t snapshot_bytes_ = 0;                 // the env bytes of every snapshot
  bool too_large_ = false;
  std::vector<ImportedJob> jobs_;
  std::vector<Item> items_;
  std::set<std::string> names_;
  std::map<std::string, int> next_suffix_;
  std::vector<CrontabProblem> problems_;
  std::vector<CrontabProblem> warnings_;
};

}  // namespace

CrontabImport ImportCrontab(std::string_view text, std::optional<CrontabFormat> format,
                            const std::string& source_name, const CrontabLookups& lookups) {
  std::optional<CrontabFormatGuess> guess;
  const bool can_guess = lookups.is_account && lookups.is_command;
  if (!format && can_guess && text.size() <= kMaxJobFileBytes)
    guess = GuessCrontabFormat(text, lookups);
  const CrontabFormat chosen = format ? *format : guess ? guess->format : CrontabFormat::kUser;
  Importer importer(chosen, guess ? &*guess : nullptr, lookups.is_account);
  if (guess && chosen == CrontabFormat::kSystem) {
    importer.Warn(
        0, "read as a system crontab (--system): " + std::to_string(guess->account_lines.size()) +
               " of its " + std::to_string(guess->entries) +
               " entries name an account after the schedule, as /etc/crontab and "
               "/etc/cron.d do (--user-format reads it as a user's)");
  }
  if (text.size() > kMaxJobFileBytes) {
    importer.TooLarge("the crontab is " + std::to_string(text.size()) + " bytes");
    return importer.Finish(source_name);
  }
  ForEachCrontabLine(text, [&](int number, std::string_view line) { importer.Line(number, line); });
  return importer.Finish(source_name);
}

}  // namespace tq
