// The "crontab" request: `tq jobs install|cat|remove|edit`, a user's own job file kept by the
// daemon (what `crontab` does for a cron host).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/model/status.h"

namespace tq {

/// Installs, reads or removes the job file of `user` ("" for the caller; another user's for
/// root only). Responses: install {"jobs": N, the jobs it holds}; cat {"text"}; remove {}. An
/// install whose text does not load changes nothing and is refused with "<file>:<line>: ..."
/// (kConfig).
struct CrontabRequest {
  enum class Action { kInstall, kCat, kRemove };
  Action action = Action::kCat;
  std::string user;
  std::string text;  ///< install: the new file
  /// install: what the caller calls the file (its path, or <stdin>), so messages name it; "":
  /// the daemon's copy. Text of at most kMaxFileNameBytes bytes, without control characters.
  std::string name;
};

/// The longest `name` an install may give its file.
constexpr size_t kMaxFileNameBytes = 4096;
/// A crontab request's body read from its frame, every field checked.
Result<CrontabRequest> DecodeCrontab(const nlohmann::json& body);
/// The body of a crontab request's frame.
nlohmann::json EncodeCrontab(const CrontabRequest& request);

}  // namespace tq
