#include "core/model/notify.h"

#include "core/model/quote.h"

namespace tq {

const char* MailOnName(MailOn m) {
  switch (m) {
    case MailOn::kAlways:
      return "always";
    case MailOn::kOutput:
      return "output";
    case MailOn::kFailure:
      break;
  }
  return "failure";
}

std::optional<MailOn> MailOnFromName(std::string_view name) {
  if (name == "failure") return MailOn::kFailure;
  if (name == "always") return MailOn::kAlways;
  if (name == "output") return MailOn::kOutput;
  return std::nullopt;
}

Status CheckHook(std::string_view field, std::string_view command) {
  const std::string f(field);
  if (command.empty() || command.size() > kMaxHookBytes)
    return Status::Invalid(f, f + ": " + std::to_string(command.size()) +
                                  " bytes is not allowed (use a command of 1.." +
                                  std::to_string(kMaxHookBytes) + " bytes)");
  if (command.find('\0') != std::string_view::npos)
    return Status::Invalid(f, f + ": a command cannot hold a NUL byte");
  return Status::Ok();
}

namespace {
// A byte allowed in an address: printable ASCII but space, comma, quotes and angle brackets.
bool AddressByte(char c) {
  return c > ' ' && c < 0x7f && c != ',' && c != '"' && c != '\'' && c != '<' && c != '>' &&
         c != '\\';
}
}  // namespace

Status CheckMailto(std::string_view field, std::string_view mailto) {
  const std::string f(field);
  const std::string help = " (use addresses separated by commas, e.g. \"ops@example.com\")";
  if (mailto.size() > kMaxMailtoBytes)
    return Status::Invalid(f, f + ": " + std::to_string(mailto.size()) +
                                  " bytes is too long (at most " + std::to_string(kMaxMailtoBytes) +
                                  ")");
  if (mailto.empty()) return Status::Ok();
  size_t start = 0;
  while (start <= mailto.size()) {
    size_t end = mailto.find(',', start);
    if (end == std::string_view::npos) end = mailto.size();
    std::string_view address = mailto.substr(start, end - start);
    while (!address.empty() && address.front() == ' ') address.remove_prefix(1);
    while (!address.empty() && address.back() == ' ') address.remove_suffix(1);
    bool ok = !address.empty() && address.front() != '-';
    for (char c : address) ok = ok && AddressByte(c);
    if (!ok) return Status::Invalid(f, f + ": " + Quote(address) + " is not a mail address" + help);
    start = end + 1;
  }
  return Status::Ok();
}

}  // namespace tq
