#include "cli/arg_checks.h"

#include <limits>

#include "core/model/bytes.h"
#include "core/model/quote.h"

namespace tq {

std::string TextValueProblem(std::string_view value) {
  if (value.empty()) return "the value must not be empty";
  if (!IsValidUtf8(value))
    return Quote(value) + " is not valid UTF-8 (names, labels and keys are text)";
  return "";
}

std::string RepeatProblem(const std::vector<std::string>& values) {
  if (values.size() < 2) return "";
  std::string quoted;
  for (size_t i = 0; i < values.size(); ++i)
    quoted += (i == 0 ? "" : i + 1 == values.size() ? " and " : ", ") + Quote(values[i]);
  const std::string times = values.size() == 2 ? "twice" : std::to_string(values.size()) + " times";
  return "given " + times + " (" + quoted + "); give it once";
}

namespace {

// The name DecimalCheck gives its validator, by which ApplyOptionRules finds it.
constexpr const char* kDecimalCheckName = "decimal";

// True when `opt` takes integers (CLI11 names their type INT, or UINT for unsigned ones).
bool TakesIntegers(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const std::string base = type.substr(0, type.find(':'));
  return base == "INT" || base == "UINT";
}

// True when `opt` carries a DecimalCheck.
bool HasDecimalCheck(CLI::Option& opt) {
  try {
    opt.get_validator(kDecimalCheckName);
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

// The check that refuses a second value of `opt`, an option that keeps one (RepeatProblem).
CLI::Validator OnceCheck(const CLI::Option* opt) {
  // CLI11 checks the values one by one, but `opt` holds them all by then.
  return CLI::Validator([opt](std::string&) { return RepeatProblem(opt->results()); }, "");
}

}  // namespace

CLI::Validator DecimalCheck(const DecimalRange& range) {
  return CLI::Validator([range](std::string& value) { return DecimalProblem(value, range); },
                        std::to_string(range.lo) + ".." + std::to_string(range.hi),
                        kDecimalCheckName);
}

void ApplyOptionRules(CLI::App& app, const std::set<std::string>& byte_options) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_items_expected_max() == 0) continue;  // a flag
    if (!opt->get_positional()) {
      opt->allow_extra_args(false);
      // CLI11 would refuse a repeat as "At Most 1 required but received 2".
      if (opt->get_items_expected_max() == 1) opt->check(OnceCheck(opt));
    }
    if (TakesIntegers(*opt)) {
      if (!HasDecimalCheck(*opt))
        opt->check(DecimalCheck({0, std::numeric_limits<int>::max(), ""}));
      continue;
    }
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
      message.find(" required ") != std::string::npos && message.ends_with(" missing") &&
      message.find(':') != std::string::npos)
    message = message.substr(0, message.find(':')) + ": a value is required";
  // CLI11's "Could not convert: --kill = x": integer options are checked before they are
  // converted (DecimalCheck), so only a flag given a value it cannot read gets here.
  const std::string prefix = "Could not convert: ";
  const size_t equals = message.find(" = ");
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr &&
      message.rfind(prefix, 0) == 0 && equals != std::string::npos)
    message = message.substr(prefix.size(), equals - prefix.size()) +
              ": a flag takes no value, got " + Quote(message.substr(equals + 3));
  return "tq: " + message;
}

}  // namespace tq
