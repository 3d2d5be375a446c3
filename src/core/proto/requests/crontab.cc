#include "core/proto/requests/crontab.h"

#include <algorithm>

#include "core/jobs/job_file.h"
#include "core/model/bytes.h"
#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

namespace {
// The wire names of the actions, in the order of CrontabRequest::Action.
constexpr const char* kActions[] = {"install", "cat", "remove"};
}  // namespace

Result<CrontabRequest> DecodeCrontab(const json& j) {
  CrontabRequest r;
  std::string action;
  for (Status st :
       {Read(j, "action", action, "install, cat or remove"), Read(j, "user", r.user, "a user name"),
        Read(j, "text", r.text, "a string"), Read(j, "name", r.name, "a string")})
    if (!st.ok()) return st;
  size_t i = 0;
  while (i < std::size(kActions) && action != kActions[i]) ++i;
  if (i == std::size(kActions))
    return Status::Invalid("action", "action: " + Quote(action) + " is not install, cat or remove");
  r.action = static_cast<CrontabRequest::Action>(i);
  if (!r.user.empty() && !ValidAccountName(r.user))
    return Status::Invalid("user", "user: " + Quote(r.user) + " is not a user name");
  if (r.action != CrontabRequest::Action::kInstall && !r.text.empty())
    return Status::Invalid("text", std::string("text: only install takes a file, not ") + action);
  if (r.action != CrontabRequest::Action::kInstall && !r.name.empty())
    return Status::Invalid("name", std::string("name: only install names a file, not ") + action);
  const bool control = std::any_of(r.name.begin(), r.name.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
  if (r.name.size() > kMaxFileNameBytes || control || !IsValidUtf8(r.name))
    return Status::Invalid("name", "name: a file name is UTF-8 text of at most " +
                                       std::to_string(kMaxFileNameBytes) +
                                       " bytes without control characters");
  if (r.text.size() > kMaxJobFileBytes)
    return Status(ErrorCode::kLimit, "text",
                  "text: a job file of " + std::to_string(r.text.size()) +
                      " bytes is larger than " + std::to_string(kMaxJobFileBytes));
  return r;
}

json EncodeCrontab(const CrontabRequest& r) {
  json j{{"action", kActions[static_cast<int>(r.action)]}};
  if (!r.user.empty()) j["user"] = r.user;
  if (r.action == CrontabRequest::Action::kInstall) j["text"] = r.text;
  if (!r.name.empty()) j["name"] = r.name;
  return j;
}

}  // namespace tq
