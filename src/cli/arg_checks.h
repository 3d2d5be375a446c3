// What tq's argument parser accepts, the same for every command: one value per option, text
// values that can travel as JSON strings, decimal integers with real bounds, and "tq:" messages.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/decimal.h"

namespace tq {

/// Why `value` cannot be an option's text value (it travels as a JSON string): "" when it is
/// non-empty valid UTF-8, else the reason, quoting the value with its bad bytes escaped.
std::string TextValueProblem(std::string_view value);

/// Why an option that keeps one value cannot take `values`: "" for one, else that it was given
/// more than once, quoting each ("given twice (\"a\" and \"b\"); give it once").
std::string RepeatProblem(const std::vector<std::string>& values);

/// The check of an integer option: a decimal number of `range` (DecimalProblem's rules), refused
/// otherwise with DecimalProblem's reason after the option's name. Every integer option of tq
/// carries one, so CLI11's own conversion (base 0: 017 is 15, 0x10 is 16) never sees a value it
/// would read differently.
CLI::Validator DecimalCheck(const DecimalRange& range);

/// Sets the rules for every option of `app` and its subcommands, at any depth: an option takes
/// one value per occurrence (repeat it for more, where it keeps several; one that keeps one
/// value refuses a repeat, RepeatProblem); an integer option without a DecimalCheck gets
/// one for 0..2147483647; any other value must be non-empty valid UTF-8, except for the options
/// named in `byte_options` (paths, which travel as bytes).
void ApplyOptionRules(CLI::App& app, const std::set<std::string>& byte_options);

/// The line tq prints for a parse error: "tq: " and what was wrong.
std::string UsageMessage(const CLI::ParseError& error);

}  // namespace tq
