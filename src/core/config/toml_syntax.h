// TOML syntax errors in plain words: what is wrong on the line and what to write instead, in
// place of the TOML library's own text ("Error while parsing key-value pair: expected '='...").
#pragma once

#include <string>
#include <string_view>

namespace tq {

/// The reason a TOML file does not parse, as tq words it: `description` is the library's text
/// ("Error while parsing CONTEXT: DETAIL"), `line_text` the line it points at (without its
/// newline). Goes after "<source>:<line>: "; a key defined twice starts with "<key>: ".
std::string PlainTomlError(std::string_view description, std::string_view line_text);

}  // namespace tq
