// Rendering tasks for people (aligned tables in local time) and for scripts (exit codes).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Prints "tq: MESSAGE" on stderr (each line of a message of several errors so) and returns the
/// exit code for the status's code.
int Fail(const Status& status);
/// Says on stderr that `queue` is one nobody set up, so nothing but max_running caps it.
void SayQueueIsNew(const std::string& queue);

/// The command of a task JSON as one shell-quoted line (argv quoted, or the shell string); for a
/// task with stages, its current stage's, after "2/4 NAME: ".
std::string CommandLine(const nlohmann::json& task);
/// Shell-quotes one argument when it needs it; bytes that are not printable are escaped.
std::string ShellQuote(const std::string& arg);

/// An RFC 3339 time from the daemon in the local zone for tables ("-" when null).
std::string LocalTime(const nlohmann::json& rfc3339);
/// Milliseconds as a short duration ("1.5s", "2m03s", "-" when null).
std::string ShortDuration(const nlohmann::json& ms);
/// Bytes in the largest binary unit that keeps a number of at least 1: "512 B", "3.4 MiB".
std::string HumanBytes(int64_t n);

/// The exit code of `tq wait` for one terminal task (SPEC 10): 0 succeeded or expired; its own
/// exit code; 128+signal; 124 timeout; 126/127 could not be executed; 125 never ran.
int WaitExitCode(const nlohmann::json& task);
/// One line saying how a terminal task ended ("failed: exit 3", "cancelled: signal 15").
std::string DescribeEnd(const nlohmann::json& task);

/// How wide tables may be: the terminal's width (80 when it says nothing) when stdout is a
/// terminal, else 0: piped output is never cut.
size_t TableWidth();

/// Prints a table a page of rows at a time (`tq list` streams pages): columns separated by two
/// spaces, each as wide as its widest cell so far (colour codes take no room); the last column
/// is cut so a line fits `width` (0: never cut).
class TablePrinter {
 public:
  explicit TablePrinter(size_t width) : width_(width) {}
  /// Prints `rows` to stdout.
  void Print(const std::vector<std::vector<std::string>>& rows);
  /// The text Print would print, one line per row.
  std::string Render(const std::vector<std::vector<std::string>>& rows);

 private:
  size_t width_;
  std::vector<size_t> widths_;
};

/// Prints rows as one table (see TablePrinter).
void PrintTable(const std::vector<std::vector<std::string>>& rows, size_t width = TableWidth());

/// What a task of `tq list --json` waits for, for the WHEN column: for a pending task "ready",
/// or its reasons ("queue paused; after 12,13; at 14:30"); "-" for other states.
std::string WaitingNote(const nlohmann::json& task);
/// The elapsed time of a running task's current attempt at `now_ms` ("2m03s"), or "" when the
/// task JSON carries no running attempt.
std::string RunningFor(const nlohmann::json& task, int64_t now_ms);
/// How long a task of `tq list --json` ran in its last attempt ("1m05s"): a running one until
/// `now_ms`; "-" before it first started.
std::string LastAttemptRan(const nlohmann::json& task, int64_t now_ms);
/// How a finished task of `tq list --json` ended, for the EXIT column: its exit code ("0", "3"),
/// the signal that ended it ("SIGKILL"), or "-" when it never ran; "" while it is not finished.
std::string ExitCell(const nlohmann::json& task);

}  // namespace tq
