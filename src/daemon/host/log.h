// tqd's log lines, written through spdlog's default logger (log_setup.h sets it up). A file that
// logs needs fmt's core header alone: spdlog's own templates cost each such file three seconds
// of compiling.
#pragma once

#include <string_view>
#include <utility>

#include <fmt/core.h>

namespace tq {

/// The level of a log line.
enum class LogLevel { kDebug, kInfo, kWarn, kError, kCritical };

/// True when lines of `level` are written now.
bool LogOn(LogLevel level);
/// Writes `line` at `level` as it is.
void LogLine(LogLevel level, std::string_view line);

/// Writes `format` with `args` (fmt's syntax) at `level`, formatted only when that level is on.
template <typename... Args>
void LogAt(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (LogOn(level)) LogLine(level, fmt::vformat(format, fmt::make_format_args(args...)));
}

/// LogAt at each level.
template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kInfo, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogWarn(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kWarn, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kError, format, std::forward<Args>(args)...);
}
template <typename... Args>
void LogCritical(fmt::format_string<Args...> format, Args&&... args) {
  LogAt(LogLevel::kCritical, format, std::forward<Args>(args)...);
}

}  // namespace tq
