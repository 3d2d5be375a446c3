// The store's password kept out of every message (SPEC 12): a libpq conninfo, a URI or
// keyword=value pairs, with each password it holds hidden, for logs and refusals that name it.
#pragma once

#include <string>
#include <string_view>

namespace tq {

/// `conninfo` with each password in it replaced by "***": a URI's user:PASSWORD@, its
/// ?password= (or &password=) parameter, and a keyword/value password=VALUE (quoted or not).
/// Errs towards hiding more: a URI's user information runs to the last "@" before its query,
/// as a password with an unencoded "/" would make it. Pure; any text is accepted.
std::string RedactConninfo(std::string_view conninfo);

/// `message` (libpq's, say) with `conninfo` quoted in it redacted as RedactConninfo does, and
/// any other appearance of one of its passwords (as written or percent-decoded) replaced by
/// "***", as when a message quotes only part of the URI. Pure.
std::string RedactMessage(std::string_view message, std::string_view conninfo);

}  // namespace tq
