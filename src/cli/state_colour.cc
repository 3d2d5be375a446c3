#include "cli/state_colour.h"

#include <unistd.h>

#include <cstdlib>

namespace tq {

bool ColourWanted(bool stdout_is_terminal, const char* no_color, bool json) {
  return stdout_is_terminal && (no_color == nullptr || *no_color == '\0') && !json;
}

bool StdoutColour(bool json) {
  return ColourWanted(isatty(STDOUT_FILENO) == 1, std::getenv("NO_COLOR"), json);
}

std::string_view StateSgr(std::string_view state) {
  if (state == "pending") return "33";
  if (state == "running") return "36";
  if (state == "succeeded") return "32";
  if (state == "failed" || state == "overdue") return "31";
  if (state == "cancelled" || state == "expired") return "2";
  return "";
}

std::string PaintState(const std::string& text, bool colour) {
  if (!colour) return text;
  const std::string_view sgr = StateSgr(std::string_view(text).substr(0, text.find(' ')));
  if (sgr.empty()) return text;
  return "\033[" + std::string(sgr) + "m" + text + "\033[0m";
}

std::string StripSgr(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\033' && i + 1 < text.size() && text[i + 1] == '[') {
      const size_t end = text.find_first_not_of("0123456789;", i + 2);
      if (end != std::string_view::npos && text[end] == 'm') {
        i = end;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

size_t VisibleWidth(std::string_view text) {
  return text.find('\033') == std::string_view::npos ? text.size() : StripSgr(text).size();
}

}  // namespace tq
