#include "core/proto/protocol.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/model/quote.h"
#include "core/model/user_rules.h"
#include "core/proto/bounded_json.h"
#include "core/proto/json_read.h"

namespace tq {

using nlohmann::json;

namespace {

// The wire names of every request, as a refusal lists them.
std::string RequestTypes() {
  std::string names;
  std::apply([&](const auto&... c) { ((names += names.empty() ? "" : " ", names += c.type), ...); },
             kCodecs);
  return names;
}

// The body of a request of wire type `type`, decoded by its row of kCodecs.
Result<Request> DecodeBody(const std::string& type, const json& j) {
  std::optional<Result<Request>> decoded;
  auto decode_if_named = [&](const auto& codec) {
    if (decoded || type != codec.type) return;
    auto r = codec.decode(j);
    decoded = r.ok() ? Result<Request>(Request(std::move(*r))) : Result<Request>(r.status());
  };
  std::apply([&](const auto&... codec) { (decode_if_named(codec), ...); }, kCodecs);
  if (decoded) return std::move(*decoded);
  return Status::Invalid("type",
                         "type: " + Quote(type) + " is not a request (" + RequestTypes() + ")");
}

}  // namespace

const char* RequestType(const Request& request) {
  return std::visit(
      [](const auto& r) { return std::get<Codec<std::decay_t<decltype(r)>>>(kCodecs).type; },
      request);
}

std::string EncodeRequest(const Request& request, const std::optional<std::string>& as_user) {
  return std::visit(
      [&](const auto& r) {
        const auto& codec = std::get<Codec<std::decay_t<decltype(r)>>>(kCodecs);
        json j = codec.encode(r);
        j["proto"] = kProtoVersion;
        j["type"] = codec.type;
        if (as_user) j["as_user"] = *as_user;
        return j.dump();
      },
      request);
}

Result<Request> DecodeRequest(std::string_view payload) {
  auto envelope = DecodeEnvelope(payload);
  if (!envelope.ok()) return envelope.status();
  return std::move(envelope->request);
}

Result<Envelope> DecodeEnvelope(std::string_view payload) {
  auto parsed = ParseBoundedJson(payload);
  if (!parsed.ok()) return parsed.status();
  const json& j = *parsed;
  if (!j.is_object()) return Status::Invalid("frame", "frame: not a JSON object");
  auto proto = j.find("proto");
  if (proto == j.end() || !proto->is_number_integer())
    return Status(ErrorCode::kProto, "proto", "proto: the request carries no protocol version");
  // Unsigned JSON integers past int64 read as -1: refused like any other version not served.
  const int64_t version =
      proto->is_number_unsigned() && !std::in_range<int64_t>(proto->get<uint64_t>())
          ? -1
          : proto->get<int64_t>();
  constexpr int kOldest = std::max(kMinProtoVersion, kProtoVersion - 1);
  if (version < kOldest || version > kProtoVersion)
    return Status(ErrorCode::kProto, "proto",
                  "proto: version " + proto->dump() + " is not served (this tqd speaks " +
                      (kOldest == kProtoVersion
                           ? std::to_string(kProtoVersion)
                           : std::to_string(kOldest) + ".." + std::to_string(kProtoVersion)) +
                      ")");
  auto type = j.find("type");
  if (type == j.end() || !type->is_string())
    return Status::Invalid("type", "type: the request names no type");
  std::string as_user;
  if (Status st = Read(j, "as_user", as_user, "a user name"); !st.ok()) return st;
  if (j.contains("as_user") && !ValidAccountName(as_user))
    return Status::Invalid("as_user", "as_user: " + Quote(as_user) + " is not a user name");
  auto request = DecodeBody(type->get<std::string>(), j);
  if (!request.ok()) return request.status();
  Envelope envelope{std::move(*request), std::nullopt};
  if (j.contains("as_user")) envelope.as_user = std::move(as_user);
  return envelope;
}

}  // namespace tq
