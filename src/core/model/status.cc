#include "core/model/status.h"

#include <algorithm>

namespace tq {

namespace {
struct CodeInfo {
  ErrorCode code;
  const char* name;
  int exit_code;
};
constexpr CodeInfo kCodes[] = {
    {ErrorCode::kOk, "ok", 0},
    {ErrorCode::kInvalid, "invalid", 2},
    {ErrorCode::kNotFound, "not-found", 4},
    {ErrorCode::kSuperseded, "superseded", 3},
    {ErrorCode::kPermission, "permission", 5},
    {ErrorCode::kUnavailable, "unavailable", 6},
    {ErrorCode::kLimit, "limit", 2},
    {ErrorCode::kProto, "proto", 1},
    {ErrorCode::kConfig, "config", 78},
    {ErrorCode::kInternal, "internal", 1},
};
}  // namespace

const char* ErrorCodeName(ErrorCode code) {
  for (const auto& c : kCodes)
    if (c.code == code) return c.name;
  return "internal";
}

ErrorCode ErrorCodeFromName(const std::string& name) {
  for (const auto& c : kCodes)
    if (name == c.name) return c.code;
  return ErrorCode::kInternal;
}

int ExitCodeFor(ErrorCode code) {
  for (const auto& c : kCodes)
    if (c.code == code) return c.exit_code;
  return 1;
}

std::vector<std::string> MessageLines(const std::string& message) {
  std::vector<std::string> lines;
  for (size_t start = 0, end; start <= message.size(); start = end + 1) {
    end = std::min(message.find('\n', start), message.size());
    lines.push_back(message.substr(start, end - start));
  }
  return lines;
}

}  // namespace tq
