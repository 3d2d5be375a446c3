// What tq's argument parser accepts, the same for every command: one value per option, text
// values that can travel as JSON strings, integer ranges with real bounds, and "tq:" messages.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace tq {

/// Why `value` cannot be an option's text value (it travels as a JSON string): "" when it is
/// non-empty valid UTF-8, else the reason, quoting the value with its bad bytes escaped.
std::string TextValueProblem(std::string_view value);

/// An integer in lo..hi, refused otherwise with a message naming both bounds.
CLI::Validator IntRange(long long lo, long long hi);

/// Sets the rules for every option of `app` and its subcommands, at any depth: an option takes
/// one value per occurrence (repeat it for more), and a value must be non-empty valid UTF-8,
/// except for the options named in `byte_options` (paths, which travel as bytes).
void ApplyOptionRules(CLI::App& app, const std::set<std::string>& byte_options);

/// The line tq prints for a parse error: "tq: " and what was wrong.
std::string UsageMessage(const CLI::ParseError& error);

}  // namespace tq
