#include "core/proto/bounded_json.h"

#include <string>
#include <utility>
#include <vector>

#include "core/model/limits.h"

namespace tq {

namespace {

using nlohmann::json;

// Builds the DOM of a document while refusing nesting deeper than kMaxJsonDepth or more than
// kMaxJsonValues values, so a deeply nested document is never built, copied or destroyed, and a
// frame of tiny values cannot make a DOM many times its size: parsing stops at the first level
// or value too many. (nlohmann's parser itself keeps its nesting on the heap, not the stack.)
class BoundedDom {
 public:
  explicit BoundedDom(json& root) : root_(root) {}
  /// Why parsing stopped early, or Ok.
  Status refusal() const { return refusal_; }

  bool null() { return Add(json()); }
  bool boolean(bool v) { return Add(v); }
  bool number_integer(json::number_integer_t v) { return Add(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Add(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return Add(v); }
  bool string(json::string_t& v) { return Add(std::move(v)); }
  bool binary(json::binary_t& v) { return Add(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return Open(json::object()); }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t, const std::string&, const json::exception&) { return false; }

 private:
  // Places `v` in the innermost open container (or as the root) and returns where it went.
  json* Place(json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(v);
    return &slot;
  }
  bool Counted() {
    if (++values_ <= kMaxJsonValues) return true;
    refusal_ =
        Status(ErrorCode::kLimit, "frame",
               "frame: more than the limit of " + std::to_string(kMaxJsonValues) + " JSON values");
    return false;
  }
  bool Add(json v) {
    if (!Counted()) return false;
    Place(std::move(v));
    return true;
  }
  bool Open(json container) {
    if (open_.size() >= kMaxJsonDepth) {
      refusal_ = Status(ErrorCode::kLimit, "frame",
                        "frame: JSON nested deeper than the limit of " +
                            std::to_string(kMaxJsonDepth) + " levels");
      return false;
    }
    if (!Counted()) return false;
    open_.push_back(Place(std::move(container)));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  json& root_;
  std::vector<json*> open_;  // the containers being filled, outermost first
  std::string key_;          // the key of the next object member
  size_t values_ = 0;
  Status refusal_ = Status::Ok();
};

}  // namespace

Result<json> ParseBoundedJson(std::string_view text) {
  json root;
  BoundedDom dom(root);
  const bool parsed = json::sax_parse(text, &dom);
  if (!dom.refusal().ok()) return dom.refusal();
  if (!parsed) return Status::Invalid("frame", "frame: not a JSON object");
  return root;
}

}  // namespace tq
