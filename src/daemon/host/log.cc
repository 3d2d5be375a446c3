#include "daemon/host/log.h"

#include <spdlog/spdlog.h>

namespace tq {

namespace {

spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
    case LogLevel::kCritical:
      return spdlog::level::critical;
  }
  return spdlog::level::critical;
}

}  // namespace

bool LogOn(LogLevel level) {
  return spdlog::default_logger_raw()->should_log(SpdlogLevel(level));
}

void LogLine(LogLevel level, std::string_view line) {
  spdlog::default_logger_raw()->log(SpdlogLevel(level), line);
}

}  // namespace tq
