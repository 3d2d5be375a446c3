#include "cli/job_page.h"

namespace tq {

namespace {

using nlohmann::json;

// Builds the answer's JSON from parse events, except the elements of its top-level "jobs"
// array, which become JobRows (their nested values, such as a file name in base64, are skipped).
class PageReader final : public nlohmann::json_sax<json> {
 public:
  explicit PageReader(JobPage& page) : page_(page) {}

  bool null() override { return Value(json()); }
  bool boolean(bool v) override {
    if (InJob()) {
      if (key_ == "enabled") row().enabled = v;
      if (key_ == "disabled") row().disabled = v;
      if (key_ == "from_last_good") row().from_last_good = v;
      if (key_ == "overdue") row().overdue = v;
      return true;
    }
    return Value(v);
  }
  bool number_integer(number_integer_t v) override {
    if (InJob()) {
      if (key_ == "last_exit_code") row().last_exit_code = v;
      return true;
    }
    return Value(v);
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (InJob()) {
      if (key_ == "last_exit_code" && v <= INT64_MAX) row().last_exit_code = int64_t(v);
      return true;
    }
    return Value(v);
  }
  bool number_float(number_float_t v, const string_t&) override { return Value(v); }
  bool string(string_t& v) override {
    if (InJob()) {
      if (std::string* field = RowString()) *field = std::move(v);
      return true;
    }
    return Value(std::move(v));
  }
  bool binary(binary_t&) override { return false; }  // not in JSON text
  bool key(string_t& k) override {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) override {
    if (InRows()) {
      page_.jobs.emplace_back();
      in_job_ = true;
      return true;
    }
    if (in_job_ || skip_ > 0) return ++skip_, true;
    return Open(json::object());
  }
  bool end_object() override {
    if (skip_ > 0) return --skip_, true;
    if (in_job_) return in_job_ = false, true;
    return Close();
  }
  bool start_array(std::size_t) override {
    if (in_job_ || skip_ > 0 || InRows()) return ++skip_, true;
    if (stack_.size() == 1 && key_ == "jobs") return rows_ = true, true;
    return Open(json::array());
  }
  bool end_array() override {
    if (skip_ > 0) return --skip_, true;
    if (rows_ && stack_.size() == 1) return rows_ = false, true;
    return Close();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  // Directly inside the "jobs" array: each object there is a job.
  bool InRows() const { return rows_ && !in_job_ && skip_ == 0; }
  // A member of a job itself (not nested deeper).
  bool InJob() const { return in_job_ && skip_ == 0; }
  // Inside something skipped: a value there is dropped.
  bool Skipping() const { return skip_ > 0 || in_job_ || (rows_ && stack_.size() == 1); }
  JobRow& row() { return page_.jobs.back(); }
  std::string* RowString() {
    JobRow& r = row();
    if (key_ == "name") return &r.name;
    if (key_ == "schedule") return &r.schedule;
    if (key_ == "timezone") return &r.timezone;
    if (key_ == "next") return &r.next;
    if (key_ == "last_fired") return &r.last_fired;
    if (key_ == "last_state") return &r.last_state;
    if (key_ == "last_reason") return &r.last_reason;
    return nullptr;
  }

  // Places `v` where the document stands: the root, an array's next element or a member.
  json* Place(json v) {
    if (stack_.empty()) {
      page_.rest = std::move(v);
      return &page_.rest;
    }
    json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    json& member = top[key_];
    member = std::move(v);
    return &member;
  }
  bool Value(json v) {
    if (Skipping()) return true;
    Place(std::move(v));
    return true;
  }
  bool Open(json container) {
    stack_.push_back(Place(std::move(container)));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }

  JobPage& page_;
  std::vector<json*> stack_;
  std::string key_;
  bool rows_ = false;    // inside the top-level "jobs" array
  bool in_job_ = false;  // inside one job of it
  int skip_ = 0;         // depth inside a skipped value
};

}  // namespace

Result<JobPage> ReadJobPage(std::string_view text) {
  JobPage page;
  PageReader reader(page);
  if (!json::sax_parse(text, &reader) || !page.rest.is_object())
    return Status::Internal("tqd sent a jobs answer that is not a JSON object");
  return page;
}

}  // namespace tq
