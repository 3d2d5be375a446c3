// `tq cron import` (SPEC 7): a crontab turned into a job file that loads and fires at the same
// times, with every line that cannot be converted reported by number, never dropped.
#pragma once

#include <functional>
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
/// may surprise (a `%` that starts stdin, a format it recognised).
struct CrontabImport {
  std::string toml;  ///< a job file that ParseJobFile accepts; comments carry the crontab's own
  std::vector<CrontabProblem> problems;
  std::vector<CrontabProblem> warnings;
};

/// Whether a word is an account's name that is not also a command (the client looks it up): a
/// user crontab line whose command starts with one was most likely copied from a system crontab.
using IsAccountName = std::function<bool(std::string_view word)>;

/// Converts crontab text. `source_name` names the input in the generated header comment. Job
/// names come from the command (made unique); SHELL, PATH and other variables go to each later
/// job's `env` (SHELL also to `shell`), CRON_TZ to `timezone`, MAILTO to a comment until
/// notifications exist, an unescaped `%` starts stdin (later `%` are newlines), `@reboot` and the
/// other macros are kept (a `%` is also a warning: cron's best-known trap). Never fails: lines it
/// cannot convert become problems (and comments).
///
/// With kUser and `is_account`, a crontab in which every entry's sixth field is an account name
/// followed by a command is read as kSystem (a warning says so); when only some entries are like
/// that, those lines are problems, since cron would run the account's name as the command.
CrontabImport ImportCrontab(std::string_view text, CrontabFormat format,
                            const std::string& source_name,
                            const IsAccountName& is_account = nullptr);

}  // namespace tq
