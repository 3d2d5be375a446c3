// Who hears of a task's end (SPEC 7a): hook commands run as the task's user, and mail through
// sendmail, as cron's MAILTO did.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/status.h"

namespace tq {

/// Which ends are mailed to `mailto`.
enum class MailOn {
  kFailure,  ///< default: a task that failed (after its last retry)
  kAlways,   ///< every end: succeeded, failed or cancelled
  kOutput,   ///< a run that printed anything, whatever its end (cron's MAILTO rule)
};

const char* MailOnName(MailOn m);
/// Parses "failure", "always" and "output"; nullopt for anything else.
std::optional<MailOn> MailOnFromName(std::string_view name);

/// The longest hook command: a shell command line, not a script.
constexpr size_t kMaxHookBytes = 4096;
/// The longest `mailto`: a few addresses.
constexpr size_t kMaxMailtoBytes = 1024;

/// A task's notifications, from `tq submit --on-failure ...` or its job.
struct NotifySpec {
  std::optional<std::string> on_failure;  ///< run once, when the task has finally failed
  std::optional<std::string> on_success;  ///< run when it succeeded
  std::optional<std::string> on_finish;   ///< run at every end: succeeded, failed, cancelled
  std::string mailto;                     ///< comma-separated addresses; "" mails nothing
  MailOn mail_on = MailOn::kFailure;

  bool operator==(const NotifySpec&) const = default;
};

/// Checks a hook command given as `field`: 1..kMaxHookBytes bytes without NUL. The error names
/// the field and what is allowed.
Status CheckHook(std::string_view field, std::string_view command);

/// Checks `mailto` given as `field`: "" or addresses separated by commas, each of printable
/// ASCII without spaces, quotes or angle brackets and not starting with "-", so nothing can
/// turn into a mail header or a sendmail option.
Status CheckMailto(std::string_view field, std::string_view mailto);

}  // namespace tq
