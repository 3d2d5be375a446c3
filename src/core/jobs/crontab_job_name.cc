#include "core/jobs/crontab_job_name.h"

#include <algorithm>
#include <array>
#include <vector>

namespace tq {

namespace {

constexpr size_t kMaxName = 64;

// Shell keywords that start a new command, like `&&` and `;`.
constexpr std::array<std::string_view, 8> kKeywords = {"if", "then",  "else",  "elif",
                                                       "do", "while", "until", "exec"};
// Commands that run the next word: the program is further on.
constexpr std::array<std::string_view, 9> kWrappers = {
    "command", "nice", "ionice", "nohup", "sudo", "env", "time", "chronic", "setsid"};
// Commands whose arguments are not the program: skipped up to the next separator.
constexpr std::array<std::string_view, 4> kGuards = {"test", "[", "[[", "cd"};

template <size_t N>
bool OneOf(std::string_view word, const std::array<std::string_view, N>& list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// A word of the command, or a separator between commands (`&&`, `;`, `(`, `then`, ...).
struct Token {
  std::string_view word;  // empty for a separator
};

std::vector<Token> Tokenize(std::string_view command) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < command.size()) {
    while (i < command.size() && IsBlank(command[i])) ++i;
    size_t end = i;
    while (end < command.size() && !IsBlank(command[end])) ++end;
    std::string_view w = command.substr(i, end - i);
    i = end;
    if (w.empty()) break;
    while (!w.empty() && (w.front() == '(' || w.front() == '{' || w.front() == '!')) {
      if (w.front() != '!') tokens.push_back({});  // `!` negates; `[ ! -d x ]` goes on
      w.remove_prefix(1);
    }
    bool separator_after = false;
    while (!w.empty() && std::string_view(";)}&|").find(w.back()) != std::string_view::npos) {
      separator_after = true;
      w.remove_suffix(1);
    }
    if (!w.empty()) tokens.push_back(OneOf(w, kKeywords) ? Token{} : Token{w});
    if (separator_after) tokens.push_back({});
  }
  return tokens;
}

// `NAME=value`, which sets a variable for the command that follows.
bool IsAssignment(std::string_view w) {
  const size_t eq = w.find('=');
  if (eq == std::string_view::npos || eq == 0 || IsDigit(w[0])) return false;
  for (size_t k = 0; k < eq; ++k)
    if (!(IsAlpha(w[k]) || IsDigit(w[k]) || w[k] == '_')) return false;
  return true;
}

// A redirection (`>x`, `2>&1`, `>>`); *bare when the target is the next word.
bool IsRedirection(std::string_view w, bool* bare) {
  size_t k = 0;
  while (k < w.size() && IsDigit(w[k])) ++k;
  if (k < w.size() && w[k] == '&') ++k;
  if (k == w.size() || (w[k] != '<' && w[k] != '>')) return false;
  while (k < w.size() && (w[k] == '<' || w[k] == '>')) ++k;
  *bare = k == w.size();
  return true;
}

// The name a program path gives: its base name, without quotes, other characters made `_`,
// runs of `_` folded, `_.-` trimmed at both ends; "" when no letter is left.
std::string NameFromWord(std::string_view word) {
  std::string plain;
  for (char c : word)
    if (c != '"' && c != '\'') plain += c;
  const size_t slash = plain.rfind('/');
  if (slash != std::string::npos) plain.erase(0, slash + 1);
  std::string name;
  bool letter = false;
  for (char c : plain) {
    const bool ok = IsAlpha(c) || IsDigit(c) || c == '_' || c == '.' || c == '-';
    letter = letter || IsAlpha(c);
    const char out = ok ? c : '_';
    if (out == '_' && !name.empty() && name.back() == '_') continue;
    name += out;
  }
  const size_t first = name.find_first_not_of("_.-");
  if (!letter || first == std::string::npos) return "";
  name = name.substr(first, name.find_last_not_of("_.-") - first + 1);
  if (name.size() > kMaxName) name.resize(kMaxName);
  return name;
}

// For `run-parts [options] DIR`: the name of DIR, the last word before the next separator.
std::string RunPartsName(const std::vector<Token>& tokens, size_t at) {
  std::string name;
  for (size_t k = at + 1; k < tokens.size() && !tokens[k].word.empty(); ++k)
    if (tokens[k].word[0] != '-') name = NameFromWord(tokens[k].word);
  return name;
}

}  // namespace

std::string JobNameFromCommand(std::string_view command) {
  const std::vector<Token> tokens = Tokenize(command);
  bool skip_to_separator = false, skip_next = false;
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::string_view w = tokens[k].word;
    if (w.empty()) {
      skip_to_separator = skip_next = false;
      continue;
    }
    if (skip_to_separator) continue;
    if (skip_next) {
      skip_next = false;
      continue;
    }
    if (OneOf(w, kGuards)) {
      skip_to_separator = true;
      continue;
    }
    bool bare = false;
    if (IsRedirection(w, &bare)) {
      skip_next = bare;
      continue;
    }
    if (OneOf(w, kWrappers) || w[0] == '-' || IsAssignment(w)) continue;
    std::string name = NameFromWord(w);
    if (name == "run-parts") {
      std::string dir = RunPartsName(tokens, k);
      if (!dir.empty()) name = dir;
    }
    if (!name.empty()) return name;
  }
  return "job";
}

}  // namespace tq
