#include "core/jobs/file_errors.h"

namespace tq {

bool FileErrors::Add(const Status& s) {
  if (s.ok()) return true;
  if (count_ == 0) field_ = s.field();
  if (count_ < kMaxFileErrors) lines_ += (lines_.empty() ? "" : "\n") + s.message();
  ++count_;
  return false;
}

Status FileErrors::Joined() const {
  if (count_ == 0) return Status::Ok();
  std::string message = lines_;
  if (count_ > kMaxFileErrors) {
    const int more = count_ - kMaxFileErrors;
    message += "\n" + path_ + ": " + std::to_string(more) + " more " +
               (more == 1 ? "error" : "errors") + " (the first " + std::to_string(kMaxFileErrors) +
               " are shown)";
  }
  return Status(ErrorCode::kConfig, field_, message);
}

}  // namespace tq
