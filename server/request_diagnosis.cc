#include "server/request_diagnosis.h"

#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "core/json/utf8.h"
#include "core/util/truncate.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace toolgate {
namespace server {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;

// protobuf's own nesting limit.
constexpr int kMaxDepth = 100;

struct Finding {
  bool malformed = false;
  std::string path;   // Of the string field with invalid UTF-8.
  size_t offset = 0;  // Of its first bad byte, inside the field.
};

std::optional<Finding> Walk(absl::string_view bytes, const Descriptor& type,
                            const std::string& prefix, int depth);

// The length-delimited members of a map entry, by field number.
std::map<int, std::string> EntryFields(absl::string_view bytes) {
  std::map<int, std::string> out;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  while (uint32_t tag = in.ReadTag()) {
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    uint32_t length = 0;
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) break;
      continue;
    }
    if (!in.ReadVarint32(&length) || !in.ReadString(&out[number], length)) {
      break;
    }
  }
  return out;
}

// Checks one length-delimited occurrence of `field`; `index` counts the
// field's earlier occurrences (for repeated fields).
std::optional<Finding> CheckValue(absl::string_view value,
                                  const FieldDescriptor& field, int index,
                                  const std::string& prefix, int depth) {
  std::string path =
      prefix.empty() ? field.name() : absl::StrCat(prefix, ".", field.name());
  if (field.is_map()) {
    const Descriptor& entry = *field.message_type();
    std::map<int, std::string> members = EntryFields(value);
    const std::string& key = members[1];
    if (entry.map_key()->type() == FieldDescriptor::TYPE_STRING &&
        FindInvalidUtf8(key) != absl::string_view::npos) {
      return Finding{false, absl::StrCat(path, " (a key)"),
                     FindInvalidUtf8(key)};
    }
    absl::StrAppend(&path, "[\"", ToValidUtf8(TruncateText(key, 64)), "\"]");
    const FieldDescriptor& v = *entry.map_value();
    if (v.type() == FieldDescriptor::TYPE_STRING) {
      const size_t bad = FindInvalidUtf8(members[2]);
      if (bad != absl::string_view::npos) return Finding{false, path, bad};
    } else if (v.type() == FieldDescriptor::TYPE_MESSAGE) {
      return Walk(members[2], *v.message_type(), path, depth + 1);
    }
    return std::nullopt;
  }
  if (field.is_repeated()) absl::StrAppend(&path, "[", index, "]");
  if (field.type() == FieldDescriptor::TYPE_STRING) {
    const size_t bad = FindInvalidUtf8(value);
    if (bad != absl::string_view::npos) return Finding{false, path, bad};
  } else if (field.type() == FieldDescriptor::TYPE_MESSAGE) {
    return Walk(value, *field.message_type(), path, depth + 1);
  }
  return std::nullopt;
}

// The first finding in `bytes` read as `type`, or none when it is fine.
std::optional<Finding> Walk(absl::string_view bytes, const Descriptor& type,
                            const std::string& prefix, int depth) {
  if (depth > kMaxDepth) return Finding{true, "", 0};
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  std::map<int, int> seen;  // Occurrences per field number.
  while (uint32_t tag = in.ReadTag()) {
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return Finding{true, "", 0};
      continue;
    }
    uint32_t length = 0;
    std::string value;
    if (!in.ReadVarint32(&length) || !in.ReadString(&value, length)) {
      return Finding{true, "", 0};
    }
    const FieldDescriptor* field = type.FindFieldByNumber(number);
    if (field == nullptr) continue;  // Unknown fields are kept, not parsed.
    if (auto found = CheckValue(value, *field, seen[number]++, prefix, depth)) {
      return found;
    }
  }
  if (!in.ConsumedEntireMessage() ||
      in.CurrentPosition() != static_cast<int>(bytes.size())) {
    return Finding{true, "", 0};
  }
  return std::nullopt;
}

}  // namespace

std::string DiagnoseUnparsableRequest(absl::string_view bytes,
                                      const Descriptor& type) {
  std::optional<Finding> found = Walk(bytes, type, "", 0);
  if (found.has_value() && !found->malformed) {
    return absl::StrCat("field ", found->path, " of ", type.full_name(),
                        " is not valid UTF-8 (first bad byte at offset ",
                        found->offset, "); string fields must hold UTF-8 text");
  }
  return absl::StrCat("the request is not a well-formed ", type.full_name(),
                      " message (protobuf wire format)");
}

}  // namespace server
}  // namespace toolgate
