// Schema documents, the resources ($id) and anchors inside them, and $ref
// resolution. Documents come only from CompileOptions (documents, resolver)
// and the metaschemas built into the binary: nothing is fetched.
//
// Thread-safety: used by one compilation at a time; not thread-safe.
#ifndef TOOLGATE_CORE_SCHEMA_INTERNAL_REGISTRY_H_
#define TOOLGATE_CORE_SCHEMA_INTERNAL_REGISTRY_H_

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/json/strict_json.h"
#include "core/schema/schema.h"

namespace toolgate {
namespace schema {
namespace internal {

// 2020-12 vocabularies, one bit each.
enum Vocab : uint32_t {
  kVocabCore = 1,
  kVocabApplicator = 2,
  kVocabUnevaluated = 4,
  kVocabValidation = 8,
  kVocabMetaData = 16,
  kVocabFormatAnnotation = 32,
  kVocabFormatAssertion = 64,
  kVocabContent = 128,
  kVocabAll = 255,
};

struct Location {
  int doc = 0;
  std::string pointer;  // RFC 6901, tokens escaped.
};

struct Resource {
  std::string uri;  // Absolute, no fragment.
  Location root;
  Dialect dialect = Dialect::kDraft2020_12;
  uint32_t vocab = kVocabAll;
  bool declares_schema = false;  // Its root has "$schema": a dialect root.
  std::map<std::string, std::string> anchors;          // name -> pointer
  std::map<std::string, std::string> dynamic_anchors;  // name -> pointer
};

class Registry {
 public:
  explicit Registry(const CompileOptions& options);

  // Adds the document being compiled (document 0).
  absl::Status AddRoot(const Json& schema);

  // Resolves an absolute URI reference (with optional fragment), loading
  // supplied documents on demand. `where` names the $ref for messages.
  absl::StatusOr<Location> Resolve(const std::string& uri, Dialect referrer,
                                   const std::string& where);

  // The JSON at a location, or an error naming it.
  absl::StatusOr<const Json*> At(const Location& loc) const;

  // The resource a location belongs to (nearest scanned ancestor).
  int ResourceOf(const Location& loc) const;

  const Resource& resource(int i) const { return resources_[i]; }
  int resource_count() const { return static_cast<int>(resources_.size()); }
  const std::string& doc_uri(int doc) const { return doc_uris_[doc]; }
  int doc_count() const { return static_cast<int>(docs_.size()); }
  // A metaschema built into the binary, not a document from the caller.
  bool doc_is_builtin(int doc) const { return doc_builtin_[doc]; }

  // "pointer" for the root document, "uri#pointer" for others.
  std::string Where(const Location& loc) const;

  // JSON values in the documents read (the root and the caller's, not the
  // built-in metaschemas): what the metaschema check walks, a large part
  // of a compile's work.
  size_t values_read() const { return values_read_; }

 private:
  absl::Status AddDocument(const std::string& uri, Json json,
                           Dialect fallback, bool builtin = false);
  // Also counts the values into `*values`.
  absl::Status CheckSize(const Json& doc, const std::string& uri,
                         size_t* values) const;
  absl::Status Scan(int doc, const Json& v, const std::string& ptr, int res,
                    int depth);
  absl::Status ScanChildren(int doc, const Json& v, const std::string& ptr,
                            int res, int depth);
  absl::Status EnterResource(int doc, const Json& v, const std::string& ptr,
                             int* res);
  absl::Status MetaschemaInfo(const std::string& uri, Dialect* dialect,
                              uint32_t* vocab, const std::string& where);
  absl::Status Load(const std::string& uri, Dialect referrer,
                    const std::string& where);

  const CompileOptions& options_;
  std::map<std::string, Json> documents_;  // Keys without trailing '#'.
  std::deque<Json> docs_;
  std::vector<std::string> doc_uris_;
  std::vector<bool> doc_builtin_;
  std::vector<Resource> resources_;
  absl::flat_hash_map<std::string, int> by_uri_;
  absl::flat_hash_map<std::string, int> resource_at_;  // doc:ptr -> res
  int metaschema_depth_ = 0;
  size_t values_read_ = 0;
};

// Canonical form of a $schema / document URI: no empty trailing fragment.
std::string NormalizeUri(const std::string& uri);

}  // namespace internal
}  // namespace schema
}  // namespace toolgate

#endif  // TOOLGATE_CORE_SCHEMA_INTERNAL_REGISTRY_H_
