// The signals a person may ask `tq cancel --signal` to send first, by name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tq {

/// The signal `name` stands for: HUP INT QUIT ABRT KILL USR1 USR2 ALRM TERM, in any case, with
/// or without "SIG", or as its number; nullopt for anything else.
std::optional<int> SignalNamed(std::string_view name);
/// The name of signal `sig` without "SIG" ("INT"), or its number as text if it has none above.
std::string SignalName(int sig);
/// The names SignalNamed takes, for a refusal: "HUP INT QUIT ...".
const char* SignalNames();

}  // namespace tq
