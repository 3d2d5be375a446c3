// Task states in colour in tables (SPEC 10: colour only on a terminal, never with NO_COLOR), and
// the width of text that carries colour codes, so tables pad on what is visible.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tq {

/// Whether tables are coloured: only when stdout is a terminal, `no_color` ($NO_COLOR) is unset
/// or empty (https://no-color.org) and the output is not --json.
bool ColourWanted(bool stdout_is_terminal, const char* no_color, bool json);
/// ColourWanted for this process: its stdout and its $NO_COLOR.
bool StdoutColour(bool json);

/// The SGR parameters of a task state's colour: pending yellow, running cyan, succeeded green,
/// failed red, cancelled and expired dim; "" for anything else.
std::string_view StateSgr(std::string_view state);
/// `text` in the colour of the state it starts with ("failed (exit 3)" is red), followed by a
/// reset; `text` unchanged when `colour` is false or it starts with no state.
std::string PaintState(const std::string& text, bool colour);

/// `text` without its SGR escape sequences ("\033[...m").
std::string StripSgr(std::string_view text);
/// The bytes of `text` a terminal shows: all but its SGR escape sequences.
size_t VisibleWidth(std::string_view text);

}  // namespace tq
