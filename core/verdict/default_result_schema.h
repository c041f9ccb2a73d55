// The text of schemas/result_block.schema.json, generated into
// default_result_schema.cc at build time (see BUILD). Internal to
// //core/verdict; use verdict::DefaultResultSchemaJson().
#ifndef TOOLGATE_CORE_VERDICT_DEFAULT_RESULT_SCHEMA_H_
#define TOOLGATE_CORE_VERDICT_DEFAULT_RESULT_SCHEMA_H_

namespace toolgate {
namespace verdict {
namespace internal {

extern const char kDefaultResultSchemaJson[];

}  // namespace internal
}  // namespace verdict
}  // namespace toolgate

#endif  // TOOLGATE_CORE_VERDICT_DEFAULT_RESULT_SCHEMA_H_
