#include "core/model/signal_names.h"

#include <csignal>
#include <iterator>

namespace tq {

namespace {

// A signal tq cancel may send, with its name.
struct NamedSignal {
  const char* name;
  int number;
};
constexpr NamedSignal kSignals[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
                                    {"ABRT", SIGABRT}, {"KILL", SIGKILL}, {"USR1", SIGUSR1},
                                    {"USR2", SIGUSR2}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}};

// `text` in upper case (ASCII).
std::string Upper(std::string_view text) {
  std::string up(text);
  for (char& c : up)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return up;
}

}  // namespace

std::optional<int> SignalNamed(std::string_view name) {
  std::string up = Upper(name);
  if (up.starts_with("SIG")) up.erase(0, 3);
  for (const NamedSignal& s : kSignals)
    if (up == s.name || up == std::to_string(s.number)) return s.number;
  return std::nullopt;
}

std::string SignalName(int sig) {
  for (const NamedSignal& s : kSignals)
    if (s.number == sig) return s.name;
  return std::to_string(sig);
}

const char* SignalNames() {
  return "HUP INT QUIT ABRT KILL USR1 USR2 ALRM TERM";
}

}  // namespace tq
