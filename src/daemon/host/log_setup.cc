#include "daemon/host/log_setup.h"

#include <sys/stat.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace tq {

namespace {

// The levels by their --log-level names, in order.
constexpr std::pair<const char*, spdlog::level::level_enum> kLevels[] = {
    {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
    {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
    {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
    {"off", spdlog::level::off},
};

// The syslog priority of a level (sd-daemon.h's SD_DEBUG .. SD_CRIT), as the journal reads it
// from a "<N>" at the start of a line.
int SyslogPriority(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return 7;
    case spdlog::level::info:
      return 6;
    case spdlog::level::warn:
      return 4;
    case spdlog::level::err:
      return 3;
    default:
      return 2;
  }
}

// The %N flag of the journal's pattern: the line's syslog priority.
class PriorityFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    const char digit = static_cast<char>('0' + SyslogPriority(msg.level));
    dest.push_back(digit);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PriorityFlag>();
  }
};

}  // namespace

std::optional<spdlog::level::level_enum> ParseLogLevel(const std::string& name) {
  for (const auto& [level_name, level] : kLevels)
    if (name == level_name) return level;
  return std::nullopt;
}

std::string LogLevelNames() {
  std::string out;
  for (const auto& [level_name, level] : kLevels)
    out += (out.empty() ? "" : ", ") + std::string(level_name);
  return out;
}

bool IsJournalStream(const char* journal_stream, dev_t dev, ino_t ino) {
  if (journal_stream == nullptr) return false;
  const std::string_view text(journal_stream);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  // Both numbers whole, decimal and nothing around them.
  const auto number = [](std::string_view digits, uintmax_t* out) {
    const char* end = digits.data() + digits.size();
    auto [ptr, ec] = std::from_chars(digits.data(), end, *out);
    return !digits.empty() && ec == std::errc() && ptr == end;
  };
  uintmax_t want_dev = 0, want_ino = 0;
  return number(text.substr(0, colon), &want_dev) && number(text.substr(colon + 1), &want_ino) &&
         want_dev == static_cast<uintmax_t>(dev) && want_ino == static_cast<uintmax_t>(ino);
}

bool StderrIsJournal() {
  struct stat st {};
  if (fstat(2, &st) != 0) return false;
  return IsJournalStream(std::getenv("JOURNAL_STREAM"), st.st_dev, st.st_ino);
}

std::string LogPattern(bool journal) {
  return journal ? "<%N>%v" : "%Y-%m-%d %H:%M:%S.%e %l %v";
}

void SetUpLogging(spdlog::level::level_enum level, bool journal) {
  auto logger = spdlog::stderr_color_mt("tqd");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<PriorityFlag>('N').set_pattern(LogPattern(journal));
  logger->set_formatter(std::move(formatter));
  logger->set_level(level);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace tq
