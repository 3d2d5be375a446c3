// The signal names `tq cancel --signal` takes.
#include <doctest/doctest.h>

#include <csignal>

#include "core/model/signal_names.h"

namespace tq {
namespace {

TEST_CASE("signals are named in any case, with or without SIG, or by number") {
  const struct {
    const char* text;
    std::optional<int> sig;
  } cases[] = {{"INT", SIGINT},        {"int", SIGINT},        {"SIGINT", SIGINT},
               {"sigHup", SIGHUP},     {"2", SIGINT},          {"15", SIGTERM},
               {"KILL", SIGKILL},      {"usr1", SIGUSR1},      {"", std::nullopt},
               {"SIG", std::nullopt},  {"STOP", std::nullopt}, {"19", std::nullopt},
               {"INTX", std::nullopt}, {"0", std::nullopt}};
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(SignalNamed(c.text) == c.sig);
  }
  CHECK(SignalName(SIGINT) == "INT");
  CHECK(SignalName(SIGSEGV) == std::to_string(SIGSEGV));
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGABRT, SIGKILL, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM})
    CHECK(SignalNamed(SignalName(sig)) == sig);
}

}  // namespace
}  // namespace tq
