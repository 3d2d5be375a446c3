// `tq cron import` (SPEC 7): a crontab turned into a job file that loads and fires at the same
// times, with every line that cannot be converted reported by number, never dropped.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tq {

/// Which crontab layout: a user's (`crontab -e`), or the system's with a user column
/// (/etc/crontab, /etc/cron.d/*).
enum class CrontabFormat { kUser, kSystem };

/// A line the importer could not convert, and why.
struct CrontabProblem {
  int line = 0;  ///< 1-based; 0 for the input as a whole (too large to convert)
  std::string message;
};

/// The importer's result: the TOML text, what it could not convert, and what it converted but
/// may surprise (a `%` that starts stdin, a format it guessed, a user this machine lacks).
struct CrontabImport {
  std::string toml;  ///< a job file that ParseJobFile accepts; comments carry the crontab's own
  std::vector<CrontabProblem> problems;
  std::vector<CrontabProblem> warnings;
};

/// What the importer asks of the machine it runs on (the client looks them up; tests fake them).
struct CrontabLookups {
  /// Whether `name` is an account in the password database.
  std::function<bool(std::string_view name)> is_account;
  /// Whether `word` is an executable file in a directory of `path` (a PATH value: directories
  /// separated by colons), as the shell that cron starts would find it.
  std::function<bool(std::string_view word, std::string_view path)> is_command;
};

/// The PATH cron gives a job when its crontab sets none.
inline constexpr std::string_view kCronDefaultPath = "/usr/bin:/bin";

/// Converts crontab text. `source_name` names the input in the generated header comment. Job
/// names come from the command (made unique); SHELL, PATH and other variables go to each later
/// job's `env` (SHELL also to `shell`), CRON_TZ to `timezone`, MAILTO to `mailto` (an empty one
/// to a comment: nothing is mailed), an unescaped `%` starts stdin (later `%` are newlines),
/// `@reboot` and the other macros are kept (a `%` is also a warning: cron's best-known trap).
/// Never fails: lines it cannot convert become problems (and comments).
///
/// `format` is the crontab's layout when the caller knows it (--system, --user-format, a file
/// of /etc/crontab or /etc/cron.d); nullopt decides it as GuessCrontabFormat does
/// (crontab_format.h), with both lookups set (without them: kUser). A guess is never silent: a
/// guessed system crontab is a warning, and its entries that name no account are problems; in
/// a guessed user crontab the entries that name an account are problems (cron would run the
/// account's name as the command). In a system crontab, each user that `lookups.is_account`
/// does not know is a warning at its first line (tqd refuses its jobs until it exists).
CrontabImport ImportCrontab(std::string_view text, std::optional<CrontabFormat> format,
                            const std::string& source_name, const CrontabLookups& lookups = {});

}  // namespace tq
