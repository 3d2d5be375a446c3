#include "core/config/toml_syntax.h"

#include <algorithm>

namespace tq {

namespace {

constexpr std::string_view kPrefix = "Error while parsing ";

bool Has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The text between the first pair of single quotes of `detail` ("'queues.a'" in "cannot
// redefine existing table 'queues.a'"), or "".
std::string_view FirstQuoted(std::string_view detail) {
  const size_t open = detail.find('\'');
  if (open == std::string_view::npos) return {};
  const size_t close = detail.find('\'', open + 1);
  if (close == std::string_view::npos) return {};
  return detail.substr(open + 1, close - open - 1);
}

// `text` with its control bytes written as escapes (\n, \xNN), so a message stays one line.
std::string Clean(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (b < 0x20 || b == 0x7f) {
      constexpr char kHex[] = "0123456789abcdef";
      out += std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Whether `line` holds a control character other than a tab: else the one a string met was the
// line's end, so the string is not closed.
bool HasControlByte(std::string_view line) {
  return std::any_of(line.begin(), line.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b < 0x20 && b != '\t') || b == 0x7f;
  });
}

// A string the library refused: not closed, or holding a byte a string may not hold.
std::string StringReason(std::string_view context, std::string_view detail, std::string_view line) {
  const bool literal = context == "literal string";
  if (Has(detail, "end-of-file"))
    return "a string is not closed: the file ends before its closing quote";
  if (Has(detail, "unknown escape sequence"))
    return "a \"string\" holds " + Clean(FirstQuoted(detail)) +
           ", which is not an escape (write \\\\ for a backslash, or use 'single quotes' for text "
           "with backslashes)";
  if (Has(detail, "control characters") && !HasControlByte(line))
    return literal ? "a string is not closed: its closing ' is missing on this line (use '''three "
                     "quotes''' for text over several lines)"
                   : "a string is not closed: its closing \" is missing on this line (use "
                     "\"\"\"three quotes\"\"\" for text over several lines)";
  if (Has(detail, "control characters"))
    return "a string holds a control character (write it as an escape, e.g. \\t or \\u0007)";
  return "a string is not valid TOML (" + Clean(detail) + ")";
}

}  // namespace

std::string PlainTomlError(std::string_view description, std::string_view line_text) {
  std::string_view context, detail = description;
  if (description.substr(0, kPrefix.size()) == kPrefix) {
    const std::string_view rest = description.substr(kPrefix.size());
    const size_t colon = rest.find(": ");
    context = rest.substr(0, colon);
    detail = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 2);
  }
  const std::string value_help =
      "write text in quotes, e.g. \"hello\"; numbers, true, false, [arrays] and { tables } go "
      "without";

  if (Has(detail, "cannot redefine existing"))
    return Clean(FirstQuoted(detail)) +
           ": defined a second time (define each key, and each [table], once in a file)";
  if (Has(description, "invalid utf-8")) return "the file is not UTF-8 text (save it as UTF-8)";
  if (context == "string" || context == "literal string")
    return StringReason(context, detail, line_text);
  if (context == "unicode scalar sequence")
    return "a \\u or \\U escape is not 4 or 8 hexadecimal digits (e.g. \\u00e9)";
  if (context == "key-value pair" && Has(detail, "end-of-file"))
    return Has(line_text, "=") ? "a value is missing after = (" + value_help + ")"
                               : "a key is not followed by = and a value (write key = value, "
                                 "e.g. max_running = 4)";
  if (context == "key-value pair" && Has(detail, "expected '='"))
    return "a key is not followed by = and a value (write key = value, e.g. max_running = 4; "
           "quote a key holding spaces)";
  if (Has(detail, "expected value, saw")) return "a value is missing after = (" + value_help + ")";
  if (Has(detail, "expected a comment or whitespace"))
    return context == "table header"
               ? "text follows a [table] header (a header line holds the [name] and maybe a # "
                 "comment)"
               : "text follows the value (write one key = value a line; a comment starts with #)";
  if (context == "table header" && Has(detail, "blank bare keys"))
    return "a [table] header names no table (write e.g. [queues.gpu])";
  if (context == "table header")
    return "a [table] header is not closed (write e.g. [queues.gpu], or [[job]] for one of a "
           "list)";
  if (context == "array")
    return Has(detail, "end-of-file")
               ? "an array is not closed: the file ends before its ]"
               : "an array is not written as items separated by commas in [ ] (write e.g. "
                 "[\"alice\", \"bob\"])";
  if (context == "inline table")
    return Has(detail, "dangling comma")
               ? "a comma ends an inline table (remove the comma before })"
               : "an inline table is not written as key = value pairs separated by commas in { } "
                 "on one line (write e.g. { gpu = 1 })";
  if (context == "root table" || Has(detail, "bare key starting character"))
    return "a line is not key = value, a [table] header or a # comment (a key is letters, digits, "
           "_ and -, or quoted)";
  if (Has(detail, "not representable in 64 bits"))
    return "a number is too large (integers run from -9223372036854775808 to "
           "9223372036854775807)";
  if (context == "date" || context == "time" || context == "date-time")
    return "a date or time is not valid (" + Clean(detail) + "; write e.g. 2026-05-27 or 07:32:00)";
  if (Has(context, "integer") || Has(context, "floating-point"))
    return "a number is not written as TOML writes them (write e.g. 4, 1_000, 0.5 or 1e6; no "
           "leading zeros)";
  if (context == "value" || context == "boolean")
    return "the value is not one TOML knows (" + value_help + ")";
  if (context.empty()) return "not valid TOML (" + Clean(description) + ")";
  return "not valid TOML in a " + Clean(context) + " (" + Clean(detail) + ")";
}

}  // namespace tq
