#include "core/jobs/job.h"

#include "core/model/name_text.h"
#include "core/model/user_rules.h"

namespace tq {

namespace {
constexpr size_t kMaxJobName = 64;
}  // namespace

std::string JobWhere(const JobDef& job, std::string_view key) {
  const auto it = job.key_lines.find(key);
  return job.file + ":" + std::to_string(it != job.key_lines.end() ? it->second : job.line) + ": ";
}

const char* OverlapName(Overlap o) {
  switch (o) {
    case Overlap::kSkip:
      return "skip";
    case Overlap::kQueue:
      return "queue";
    case Overlap::kAllow:
      return "allow";
    case Overlap::kReplace:
      return "replace";
  }
  return "skip";
}

const char* MisfireName(Misfire m) {
  switch (m) {
    case Misfire::kSkip:
      return "skip";
    case Misfire::kRunOnce:
      return "run_once";
    case Misfire::kRunAll:
      return "run_all";
  }
  return "run_once";
}

std::optional<Overlap> OverlapFromName(std::string_view name) {
  for (Overlap o : {Overlap::kSkip, Overlap::kQueue, Overlap::kAllow, Overlap::kReplace})
    if (name == OverlapName(o)) return o;
  return std::nullopt;
}

std::optional<Misfire> MisfireFromName(std::string_view name) {
  for (Misfire m : {Misfire::kSkip, Misfire::kRunOnce, Misfire::kRunAll})
    if (name == MisfireName(m)) return m;
  return std::nullopt;
}

bool ValidJobRef(std::string_view ref) {
  const size_t slash = ref.find('/');
  if (slash == std::string_view::npos) return ValidJobName(ref);
  return ValidAccountName(ref.substr(0, slash)) && ValidJobName(ref.substr(slash + 1));
}

bool ValidJobName(std::string_view name) {
  return ValidNameText(name, kMaxJobName);
}

}  // namespace tq
