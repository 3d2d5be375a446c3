// Where and how tqd logs (SPEC 11): to stderr, with its own timestamps on a terminal or in a
// file, and with syslog priority prefixes instead when stderr is systemd's journal, which keeps
// its own timestamps and takes the prefixes as each line's level.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include <spdlog/common.h>

namespace tq {

/// The level a `--log-level` value names: trace, debug, info, warn, error, critical or off.
std::optional<spdlog::level::level_enum> ParseLogLevel(const std::string& name);
/// The values ParseLogLevel takes, for messages: "trace, debug, ...".
std::string LogLevelNames();

/// Whether `journal_stream` (systemd's JOURNAL_STREAM, "DEVICE:INODE") names the file with
/// device `dev` and inode `ino`: then that file is a stream to the journal.
bool IsJournalStream(const char* journal_stream, dev_t dev, ino_t ino);

/// Whether tqd's stderr is connected to the journal (JOURNAL_STREAM names it).
bool StderrIsJournal();

/// The pattern of each line: "<6>message" for the journal, else
/// "2026-11-26 10:00:00.123 info message".
std::string LogPattern(bool journal);

/// Makes the default logger write to stderr at `level`, for the journal when `journal`.
void SetUpLogging(spdlog::level::level_enum level, bool journal);

}  // namespace tq
