// `tq cron import` (SPEC 7): a crontab turned into a job file that loads and fires at the same
// times, with every line that cannot be converted reported by number, never dropped.
#pragma once

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

/// The importer's result: the TOML text and what it could not convert.
struct CrontabImport {
  std::string toml;  ///< a job file that ParseJobFile accepts; comments carry the crontab's own
  std::vector<CrontabProblem> problems;
};

/// Converts crontab text. `source_name` names the input in the generated header comment. Job
/// names come from the command (made unique); SHELL, PATH and other variables go to each later
/// job's `env` (SHELL also to `shell`), CRON_TZ to `timezone`, MAILTO to a comment until
/// notifications exist, an unescaped `%` starts stdin (later `%` are newlines), `@reboot` and the
/// other macros are kept. Never fails: lines it cannot convert become problems (and comments).
CrontabImport ImportCrontab(std::string_view text, CrontabFormat format,
                            const std::string& source_name);

}  // namespace tq
