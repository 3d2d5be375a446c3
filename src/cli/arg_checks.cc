#include "cli/arg_checks.h"

#include <cerrno>
#include <cstdlib>

#include "core/model/bytes.h"
#include "core/model/quote.h"

namespace tq {

std::string TextValueProblem(std::string_view value) {
  if (value.empty()) return "the value must not be empty";
  if (!IsValidUtf8(value))
    return Quote(value) + " is not valid UTF-8 (names, labels and keys are text)";
  return "";
}

CLI::Validator IntRange(long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& value) -> std::string {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(value.c_str(), &end, 10);
        const bool digits = !value.empty() && value.find_first_of(" \t\n") == std::string::npos;
        if (!digits || *end != '\0' || errno == ERANGE)
          return Quote(value) + " is not an integer (" + range + ")";
        if (v < lo || v > hi) return value + " is out of range " + range;
        return "";
      },
      "INT in " + range);
}

void ApplyOptionRules(CLI::App& app, const std::set<std::string>& byte_options) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_items_expected_max() == 0) continue;  // a flag
    if (!opt->get_positional()) opt->allow_extra_args(false);
    if (byte_options.count(opt->get_name()) != 0) continue;
    // CLI11 puts the option's name before the message.
    opt->check(CLI::Validator([](std::string& value) { return TextValueProblem(value); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    ApplyOptionRules(*sub, byte_options);
}

std::string UsageMessage(const CLI::ParseError& error) {
  std::string message = error.what();
  // CLI11's "--queue: 1 required TEXT missing" for an option given without its value.
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr &&
      message.find(" required ") != std::string::npos && message.find(':') != std::string::npos)
    message = message.substr(0, message.find(':')) + ": a value is required";
  // CLI11's "Could not convert: --version = x": every typed option of tq is an integer.
  const std::string prefix = "Could not convert: ";
  const size_t equals = message.find(" = ");
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr &&
      message.rfind(prefix, 0) == 0 && equals != std::string::npos)
    message = message.substr(prefix.size(), equals - prefix.size()) +
              ": expected an integer, got " + Quote(message.substr(equals + 3));
  return "tq: " + message;
}

}  // namespace tq
