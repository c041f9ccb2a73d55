#include "core/state/redis_run_record.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/state/redis_layout.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace state {
namespace {

namespace layout = redis_layout;
using Json = nlohmann::json;

// nlohmann's dump throws on bytes that are not UTF-8 (gRPC never hands us
// such strings, but a direct caller could): caught here, so none escapes.
absl::StatusOr<std::string> Dump(const Json& json, absl::string_view what) {
  try {
    return json.dump();
  } catch (const Json::exception&) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be UTF-8 to be kept in the state store"));
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> RunCreateArgs(
    const RunRecord& r, absl::string_view token_hash, int64_t ttl_ms) {
  absl::StatusOr<std::string> ctx = Dump(Json(r.context), "context");
  if (!ctx.ok()) return ctx.status();
  absl::StatusOr<std::string> texts =
      Dump(Json(r.protected_texts), "protected_texts");
  if (!texts.ok()) return texts.status();
  const std::string ttl = absl::StrCat(ttl_ms);
  // Field, value pairs.
  // clang-format off
  return std::vector<std::string>{
      ttl,
      layout::kToken, std::string(token_hash),
      layout::kSnapshot, r.snapshot,
      layout::kModel, r.model,
      layout::kTenant, r.tenant,
      layout::kContext, *std::move(ctx),
      layout::kMaxRejects, absl::StrCat(r.max_rejects),
      layout::kKillThreshold, absl::StrCat(r.kill_switch.threshold),
      layout::kKillWindow, absl::StrCat(r.kill_switch.window),
      layout::kTextFormat, absl::StrCat(static_cast<int>(r.text_format)),
      layout::kProtectedTexts, *std::move(texts),
      layout::kIdleTtlMs, ttl};
  // clang-format on
}

namespace {

bool IsString(const redis::Reply& r) {
  return r.type == redis::Reply::Type::kString ||
         r.type == redis::Reply::Type::kStatus;
}

// The run hash as HGETALL returns it: field, value, field, value, ...
using FieldMap = absl::flat_hash_map<std::string, std::string>;

std::optional<FieldMap> ToFieldMap(const redis::Reply& fields) {
  FieldMap out;
  for (size_t i = 0; i + 1 < fields.elements.size(); i += 2) {
    if (!IsString(fields.elements[i]) || !IsString(fields.elements[i + 1])) {
      return std::nullopt;
    }
    out[fields.elements[i].str] = fields.elements[i + 1].str;
  }
  return out;
}

std::optional<int> IntField(const FieldMap& f, const char* name) {
  auto it = f.find(name);
  int value = 0;
  if (it == f.end() || !absl::SimpleAtoi(it->second, &value)) {
    return std::nullopt;
  }
  return value;
}

// A JSON field parsed without exceptions; discarded when absent or not JSON.
Json JsonField(const FieldMap& f, const char* name) {
  auto it = f.find(name);
  if (it == f.end()) return Json(Json::value_t::discarded);
  return Json::parse(it->second, nullptr, /*allow_exceptions=*/false);
}

std::optional<std::map<std::string, std::string>> ContextField(
    const FieldMap& f) {
  Json json = JsonField(f, layout::kContext);
  if (!json.is_object()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (auto& [key, value] : json.items()) {
    if (!value.is_string()) return std::nullopt;
    out[key] = value.get<std::string>();
  }
  return out;
}

std::optional<std::vector<std::string>> TextsField(const FieldMap& f) {
  Json json = JsonField(f, layout::kProtectedTexts);
  if (!json.is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const Json& text : json) {
    if (!text.is_string()) return std::nullopt;
    out.push_back(text.get<std::string>());
  }
  return out;
}

}  // namespace

std::optional<RunRecord> ParseRunRecord(const redis::Reply& reply) {
  std::optional<FieldMap> f = ToFieldMap(reply);
  if (!f || !f->contains(layout::kSnapshot) || !f->contains(layout::kModel)) {
    return std::nullopt;
  }
  std::optional<int> max_rejects = IntField(*f, layout::kMaxRejects);
  std::optional<int> threshold = IntField(*f, layout::kKillThreshold);
  std::optional<int> window = IntField(*f, layout::kKillWindow);
  std::optional<int> format = IntField(*f, layout::kTextFormat);
  auto context = ContextField(*f);
  auto texts = TextsField(*f);
  if (!max_rejects || !threshold || !window || !format || !context || !texts ||
      *format < 0 ||
      *format > static_cast<int>(extract::TextFormat::kUnrecognized)) {
    return std::nullopt;
  }
  int64_t idle_ttl_ms = 0;
  auto ttl = f->find(layout::kIdleTtlMs);
  if (ttl != f->end() && !absl::SimpleAtoi(ttl->second, &idle_ttl_ms)) {
    return std::nullopt;
  }
  return RunRecord{(*f)[layout::kSnapshot],
                   (*f)[layout::kModel],
                   (*f)[layout::kTenant],
                   *std::move(context),
                   *std::move(texts),
                   *max_rejects,
                   output::HealthWindowOptions{*threshold, *window},
                   static_cast<extract::TextFormat>(*format),
                   std::max<int64_t>(0, idle_ttl_ms)};
}

}  // namespace state
}  // namespace toolgate
