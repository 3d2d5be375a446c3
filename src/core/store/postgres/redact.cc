#include "core/store/postgres/redact.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tq {

namespace {

constexpr std::string_view kHidden = "***";

// One password in a conninfo: the bytes [begin, end) that hold it (quotes included), and its
// value as libpq reads it (percent-decoded or unescaped).
struct Secret {
  size_t begin = 0, end = 0;
  std::string value;
};

// `text` with each %XX decoded, as libpq decodes a URI's parts; a bad escape is kept as it is.
std::string PercentDecoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The passwords of a URI: the user information's (after its first ":") and each
// password= parameter of the query.
std::vector<Secret> UriSecrets(std::string_view s, size_t authority) {
  std::vector<Secret> secrets;
  // libpq ends the user information at the first "@" before any "/"; a password with an
  // unencoded "/" ends it at the last "@" before the query. The later of the two hides most.
  size_t at = std::string_view::npos;
  if (const size_t a = s.find_first_of("@/", authority); a != s.npos && s[a] == '@') at = a;
  const size_t query = s.find('?', authority);
  if (const size_t b = s.substr(0, query).rfind('@');
      b != s.npos && b >= authority && (at == s.npos || b > at))
    at = b;
  if (at != s.npos) {
    if (const size_t colon = s.find(':', authority); colon < at)
      secrets.push_back({colon + 1, at, PercentDecoded(s.substr(colon + 1, at - colon - 1))});
  }
  const size_t params = s.find('?', at == s.npos ? authority : at + 1);
  for (size_t p = params; p != s.npos && p < s.size();) {
    const size_t begin = p + 1;
    const size_t end = std::min(s.find('&', begin), s.size());
    const size_t eq = s.find('=', begin);
    if (eq < end && PercentDecoded(s.substr(begin, eq - begin)) == "password")
      secrets.push_back({eq + 1, end, PercentDecoded(s.substr(eq + 1, end - eq - 1))});
    p = end;
  }
  return secrets;
}

// The passwords of keyword/value pairs, read as libpq's conninfo_parse reads them: a value in
// single quotes (with backslash escapes), or up to the next white space.
std::vector<Secret> KeywordSecrets(std::string_view s) {
  std::vector<Secret> secrets;
  const auto space = [&](size_t i) { return std::isspace(static_cast<unsigned char>(s[i])) != 0; };
  size_t i = 0;
  for (;;) {
    while (i < s.size() && space(i)) ++i;
    if (i == s.size()) break;
    const size_t key = i;
    while (i < s.size() && !space(i) && s[i] != '=') ++i;
    const std::string_view name = s.substr(key, i - key);
    while (i < s.size() && space(i)) ++i;
    if (i == s.size() || s[i] != '=') break;  // libpq refuses the rest
    ++i;
    while (i < s.size() && space(i)) ++i;
    const size_t begin = i;
    const bool quoted = i < s.size() && s[i] == '\'';
    if (quoted) ++i;
    std::string value;
    while (i < s.size() && (quoted ? s[i] != '\'' : !space(i))) {
      if (s[i] == '\\' && i + 1 < s.size()) ++i;
      value += s[i++];
    }
    if (quoted && i < s.size()) ++i;  // the closing quote
    if (name == "password") secrets.push_back({begin, i, std::move(value)});
  }
  return secrets;
}

// The passwords of `conninfo`, in order: a URI's ("scheme://...") or keyword/value pairs'.
std::vector<Secret> Secrets(std::string_view conninfo) {
  const size_t scheme_end = conninfo.find("://");
  const bool uri =
      scheme_end != conninfo.npos && scheme_end > 0 &&
      std::all_of(conninfo.begin(), conninfo.begin() + scheme_end, [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
      });
  return uri ? UriSecrets(conninfo, scheme_end + 3) : KeywordSecrets(conninfo);
}

// `text` with every occurrence of `what` (not empty) replaced by `with`.
std::string ReplaceAll(std::string text, std::string_view what, std::string_view with) {
  for (size_t at = text.find(what); at != text.npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
  return text;
}

}  // namespace

std::string RedactConninfo(std::string_view conninfo) {
  std::string out;
  size_t done = 0;
  for (const Secret& secret : Secrets(conninfo)) {
    out.append(conninfo.substr(done, secret.begin - done));
    out.append(kHidden);
    done = secret.end;
  }
  out.append(conninfo.substr(done));
  return out;
}

std::string RedactMessage(std::string_view message, std::string_view conninfo) {
  std::string out(message);
  if (conninfo.empty()) return out;
  out = ReplaceAll(std::move(out), conninfo, RedactConninfo(conninfo));
  // Longest first, so that no part of a longer one is left beside a shorter one's "***".
  std::vector<std::string> hide;
  for (const Secret& secret : Secrets(conninfo)) {
    hide.emplace_back(conninfo.substr(secret.begin, secret.end - secret.begin));
    hide.push_back(secret.value);
  }
  std::sort(hide.begin(), hide.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& secret : hide)
    if (!secret.empty() && secret != kHidden) out = ReplaceAll(std::move(out), secret, kHidden);
  return out;
}

}  // namespace tq
