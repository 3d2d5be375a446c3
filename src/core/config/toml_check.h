// Reading tq's TOML files (tqd.toml, job files) with every refusal in one shape:
// "<source>:<line>: <key>: <reason>", the reason quoting the value and saying what is allowed.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/resources.h"
#include "core/model/status.h"

namespace tq {

/// Parses TOML text; a syntax error is kConfig with field "" and "<source>:<line>: <reason>",
/// the reason in plain words (PlainTomlError).
Result<toml::table> ParseTomlText(std::string_view text, const std::string& source);

/// A TOML value as a message shows it: numbers and booleans as written, strings quoted
/// (core/model/quote.h), the rest by kind ("a table", "an array").
std::string DescribeToml(const toml::node& n);

/// The line of a key/value pair: the key's, or the value's when the key carries none.
int TomlLine(const toml::key& k, const toml::node& v);

/// Turns reasons into kConfig errors whose field is the dotted key and whose message starts
/// with "<source>:<line>: <key>: ". Each reader stores into `*out` only when the value is good.
class TomlChecker {
 public:
  /// `source` (usually the path) must outlive the checker.
  explicit TomlChecker(const std::string& source) : source_(source) {}

  Status Error(const std::string& key, int line, const std::string& reason) const;
  /// Re-homes a Status from a parser whose message already starts with "<key>: ".
  Status Wrap(const std::string& key, int line, const Status& s) const;

  /// An integer from lo to hi.
  Status Int(const std::string& key, int line, const toml::node& v, int64_t lo, int64_t hi,
             int64_t* out) const;
  /// A duration: a string like "90s" or "1h30m" (core/model/duration.h), or whole seconds.
  Status Duration(const std::string& key, int line, const toml::node& v, int64_t* out_ms) const;
  /// true or false.
  Status Bool(const std::string& key, int line, const toml::node& v, bool* out) const;
  /// An array of exit codes 0..255.
  Status ExitCodes(const std::string& key, int line, const toml::node& v,
                   std::vector<int>* out) const;
  /// A user or group name (ValidAccountName).
  Status AccountName(const std::string& key, int line, const toml::node& v, std::string* out) const;
  /// An array of user names (ValidAccountName), at most 65536 of them.
  Status AccountNames(const std::string& key, int line, const toml::node& v,
                      std::vector<std::string>* out) const;
  /// One of kResourceKeys (`name`) into `out`: nice -20..19, ionice (IoPriority), nofile and
  /// nproc 1..2^31-1, core a size in bytes (0 allowed), memory_max a size of 1MiB or more,
  /// cpu_weight 1..10000, pids_max 1..2^31-1.
  Status Resource(const std::string& key, std::string_view name, int line, const toml::node& v,
                  Resources* out) const;
  /// A path: "" for the default, else absolute, without NUL bytes, at most `max_len` bytes.
  Status Path(const std::string& key, int line, const toml::node& v, size_t max_len,
              std::string* out) const;

 private:
  const std::string& source_;
};

}  // namespace tq
