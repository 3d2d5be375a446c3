// Errors as values: every refusal names the field, the value and what is allowed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tq {

/// What kind of failure a Status carries; each maps to one wire code and one CLI exit code.
enum class ErrorCode {
  kOk,
  kInvalid,      ///< a bad value or a malformed request (exit 2)
  kNotFound,     ///< no such task, or it belongs to someone else (exit 4)
  kSuperseded,   ///< a newer version of the key exists (exit 3)
  kPermission,   ///< not allowed (exit 5)
  kUnavailable,  ///< the daemon cannot be reached (exit 6)
  kLimit,        ///< a size or count limit was exceeded (exit 2)
  kProto,        ///< protocol version mismatch (exit 1)
  kConfig,       ///< configuration error (tqd exits 78)
  kInternal,     ///< anything else: I/O, the store, a bug (exit 1)
};

/// How lasting a failure of the store is, so a caller can tell "try again" from "stop". Set only
/// on errors the store returns for a failed SQLite call.
enum class StoreFault {
  kNone,       ///< not a store fault: a refusal, a bad value, a bug
  kTransient,  ///< busy, locked, an I/O error: the same call may succeed when tried again
  kPermanent,  ///< full, constraint, corrupt, read-only: fails again until something changes
};

/// The wire spelling of a code ("not-found"); the inverse is ErrorCodeFromName.
const char* ErrorCodeName(ErrorCode code);
/// Parses a wire spelling; unknown names become kInternal.
ErrorCode ErrorCodeFromName(const std::string& name);
/// The exit code of `tq` for an error of this code.
int ExitCodeFor(ErrorCode code);
/// The lines of a message that holds several errors, one a line (a single one for most).
std::vector<std::string> MessageLines(const std::string& message);

/// The outcome of an operation: ok, or a code with the offending field and a human message.
class Status {
 public:
  Status() = default;
  /// An error; `field` names the request field or setting at fault ("" when none).
  Status(ErrorCode code, std::string field, std::string message)
      : code_(code), field_(std::move(field)), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Invalid(std::string field, std::string message) {
    return Status(ErrorCode::kInvalid, std::move(field), std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(ErrorCode::kNotFound, "id", std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(ErrorCode::kInternal, "", std::move(message));
  }

  /// This status marked as a store fault of kind `fault`.
  Status WithFault(StoreFault fault) && {
    fault_ = fault;
    return std::move(*this);
  }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }
  /// Whether (and how lastingly) the store failed; kNone for every other error.
  StoreFault fault() const { return fault_; }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string field_;
  std::string message_;
  StoreFault fault_ = StoreFault::kNone;
};

/// A value or the Status saying why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace tq
