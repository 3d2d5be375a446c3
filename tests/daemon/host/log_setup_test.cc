// tqd's log set-up: the --log-level names, and when stderr counts as the journal.
#include "daemon/host/log_setup.h"

#include <doctest/doctest.h>

namespace tq {

TEST_CASE("--log-level names each level, and nothing else") {
  struct Case {
    const char* name;
    std::optional<spdlog::level::level_enum> level;
  };
  const Case cases[] = {
      {"trace", spdlog::level::trace}, {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},   {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},   {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},     {"", std::nullopt},
      {"INFO", std::nullopt},          {"warning", std::nullopt},
      {"err", std::nullopt},           {"info ", std::nullopt},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(ParseLogLevel(c.name) == c.level);
  }
  CHECK(LogLevelNames() == "trace, debug, info, warn, error, critical, off");
}

TEST_CASE("JOURNAL_STREAM counts only when it names this very file") {
  struct Case {
    const char* value;
    bool journal;
  };
  const Case cases[] = {
      {"8:12345", true},    {"8:12346", false},  {"9:12345", false},  {"8:12345x", false},
      {"8:", false},        {":12345", false},   {"", false},         {"812345", false},
      {"8:12345:1", false}, {"-8:12345", false}, {" 8:12345", false},
  };
  for (const Case& c : cases) {
    INFO(c.value);
    CHECK(IsJournalStream(c.value, 8, 12345) == c.journal);
  }
  CHECK_FALSE(IsJournalStream(nullptr, 8, 12345));
}

TEST_CASE("the journal gets a priority prefix and no timestamp, elsewhere a timestamp") {
  CHECK(LogPattern(true) == "<%N>%v");
  CHECK(LogPattern(false).rfind("%Y-%m-%d %H:%M:%S", 0) == 0);
}

}  // namespace tq
