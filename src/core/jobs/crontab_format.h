// Which layout a crontab has when nobody said (`tq cron import` without --system or
// --user-format, of a file outside /etc/crontab and /etc/cron.d): decided by a clear majority
// of its entries, never by one alone.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/jobs/crontab_import.h"

namespace tq {

/// What the entries of a crontab say of its layout.
struct CrontabFormatGuess {
  CrontabFormat format = CrontabFormat::kUser;
  /// The entries whose sixth field names an account rather than a command, by line, each with
  /// the PATH in effect at it (where no command of that name was found).
  std::map<int, std::string> account_lines;
  int entries = 0;  ///< every entry the user format reads (variables and comments are none)
};

/// Reads `text` (at most a job file's size) as a system crontab when at least two entries name
/// an account after their schedule and they are at least two thirds of the entries; else as a
/// user's. An entry names an account when its sixth field is followed by more words,
/// `lookups.is_account` says it is one, and `lookups.is_command` finds no command of that name
/// on the PATH in effect at the line: the crontab's last `PATH=` above it, else cron's default
/// kCronDefaultPath. Both lookups must be set.
CrontabFormatGuess GuessCrontabFormat(std::string_view text, const CrontabLookups& lookups);

}  // namespace tq
