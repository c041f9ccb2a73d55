// The larger payloads: a verdict envelope and tool outputs.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/engine/payloads.h"
#include "nlohmann/json.hpp"

namespace toolgate {
namespace bench {
namespace {

using OJson = nlohmann::ordered_json;

// Reviewer-style findings; repeated to bring the envelope to ~4 KB, the
// size of a typical code-review or QA agent's final message.
std::string Findings() {
  std::string out = "## Findings\n\n";
  const char* kChecks[] = {
      "Unit tests in services/billing pass (412 tests, 0 failures).",
      "The refund path rounds to cents before comparing with the invoice.",
      "Idempotency keys are checked before the payment provider is called.",
      "Error responses from the provider are mapped to retryable/terminal.",
      "The migration adds a nullable column; no table rewrite on Postgres.",
      "Logging never includes card numbers; checked with the PII linter.",
      "Feature flag refunds_v2 defaults to off in production config.",
      "The new endpoint requires the billing:write scope.",
  };
  for (const char* round : {"first pass", "re-check", "final"}) {
    for (const char* check : kChecks) {
      absl::StrAppend(&out, "- [", round, "] ", check, "\n");
    }
  }
  return out;
}

// A fenced log with a non-json info string: masked, never a candidate,
// but the scanner still has to walk past it.
std::string TestLog() {
  std::string out = "\n## Test run\n\n```text\n";
  const char* kTests[] = {
      "TestRefundFull", "TestRefundPartial", "TestRefundThreeWaySplit",
      "TestRefundIdempotent", "TestRefundProviderTimeout",
      "TestRefundProviderDeclined", "TestRefundCurrencyMismatch",
      "TestRefundAuditLog", "TestMigration0042Up", "TestMigration0042Down",
      "TestScopeBillingWrite", "TestFlagDefaultOff",
  };
  int ms = 3;
  for (const char* test : kTests) {
    absl::StrAppend(&out, "=== RUN   ", test, "\n--- PASS: ", test, " (0.0",
                    ms, "s)\n");
    ms = (ms * 7) % 10;
  }
  absl::StrAppend(&out, "PASS\nok  \tservices/billing\t1.482s\n```\n");
  return out;
}

OJson FinalBlock() {
  return {{"verdict", "pass"},
          {"reason",
           "The change implements partial refunds as specified; tests pass, "
           "the rounding bug found in the draft review was fixed in "
           "commit 4f2a9c1, and no sensitive data is logged."},
          {"evidence",
           {"services/billing/refund.go:118", "services/billing/refund_test.go",
            "ci/run/88213#unit", "migrations/0042_add_refund_reason.sql"}},
          {"confidence", 0.86}};
}

std::string MakeEnvelope() {
  std::string env =
      "<think>\nThe task is to review PR 1187 (partial refunds). The result "
      "block format is:\n```json\n"
      R"({"verdict": "fail", "reason": "example only"})"
      "\n```\nI must only emit the real one at the end.\n</think>\n"
      "# Review of PR 1187: partial refunds\n\nI read the diff, ran the "
      "tests and checked the migration against a copy of production.\n\n";
  env += Findings();
  env += TestLog();
  env +=
      "\nThe helper the PR adds, for reference:\n```python\n"
      "def summarize(result):\n"
      "    return {\"verdict\": \"pass\" if result.ok else \"fail\",\n"
      "            \"reason\": result.message}\n```\n\n"
      "Draft verdict before re-running the rounding tests:\n```json\n"
      R"({"verdict": "fail", "reason": "amount rounding drops a cent on 3-way splits", "evidence": ["refund.go:131"]})"
      "\n```\n\nAfter commit 4f2a9c1 the rounding test passes, so the draft "
      "no longer holds. Final result:\n\n```json\n";
  env += FinalBlock().dump(2);
  env += "\n```\n";
  return env;
}

// An invoice as a billing API returns it: the fields the output schema
// names plus the many it does not (additional properties are allowed).
OJson Invoice() {
  OJson items = OJson::array();
  const char* kSkus[] = {"SEAT-PRO", "SEAT-PRO", "STORAGE-100G", "SUPPORT-PLUS",
                         "API-CALLS-1M", "SEAT-VIEWER", "SSO-ADDON"};
  int n = 0;
  for (const char* sku : kSkus) {
    items.push_back({{"line_id", absl::StrCat("li_", 7000 + n)},
                     {"sku", sku},
                     {"description", absl::StrCat(sku, " monthly, March 2024")},
                     {"quantity", 1 + n % 3},
                     {"unit_price", {{"value", 49.5 + n}, {"currency", "EUR"}}},
                     {"tax_rate", 0.19}});
    ++n;
  }
  return {{"invoice_id", "INV-00004211"},
          {"amount", {{"value", 1249.5}, {"currency", "EUR"}}},
          {"status", "open"},
          {"customer",
           {{"customer_id", "CUS-004211"},
            {"name", "Okafor Logistics GmbH"},
            {"billing_email", "ap@okafor-logistics.example"},
            {"address", {{"line1", "Hafenstrasse 12"}, {"city", "Hamburg"},
                         {"postal_code", "20457"}, {"country", "DE"}}}}},
          {"issued_at", "2024-03-01T00:00:00Z"},
          {"due_at", "2024-03-31T00:00:00Z"},
          {"line_items", items},
          {"notes", "Net 30. Reverse charge does not apply."},
          {"metadata", {{"source", "billing-api"}, {"version", "2024-02-15"}}}};
}

OJson Customer(const char* tier) {
  OJson orders = OJson::array();
  for (int i = 0; i < 5; ++i) {
    orders.push_back({{"order_id", absl::StrCat("ORD-", 88120 + i)},
                      {"placed_at", absl::StrCat("2024-02-", 10 + i, "T08:30:00Z")},
                      {"total", {{"value", 120.0 + 17 * i}, {"currency", "EUR"}}},
                      {"status", i == 3 ? "refunded" : "delivered"}});
  }
  return {{"customer_id", "CUS-004211"},
          {"name", "Dana Okafor"},
          {"email", "dana.okafor@example.org"},
          {"tier", tier},
          {"created_at", "2021-06-14T09:12:44Z"},
          {"seats", 42},
          {"account_manager", "j.petrov@example.com"},
          {"tags", {"logistics", "eu", "annual"}},
          {"recent_orders", orders}};
}

std::string McpResult(const char* tier) {
  const OJson customer = Customer(tier);
  return OJson{{"content", {{{"type", "text"}, {"text", customer.dump(2)}}}},
               {"structuredContent", customer},
               {"isError", false}}
      .dump();
}

OutputPayload Output(std::string name, std::string snapshot, std::string tool,
                     int http_status, std::string body, bool valid) {
  OutputPayload p;
  p.name = std::move(name);
  p.snapshot = std::move(snapshot);
  p.tool = std::move(tool);
  p.content_type = "application/json";
  p.http_status = http_status;
  p.body = std::move(body);
  p.expect_valid = valid;
  return p;
}

}  // namespace

const std::string& VerdictEnvelope() {
  static const auto* kEnvelope = new std::string(MakeEnvelope());
  return *kEnvelope;
}

const std::vector<OutputPayload>& ToolOutputs() {
  static const auto* kOutputs = new std::vector<OutputPayload>{
      Output("http_json_valid", "billing", "get_invoice", 200,
             Invoice().dump(2), true),
      Output("mcp_result_valid", "customers", "get_customer", -1,
             McpResult("pro"), true),
      Output("mcp_result_drift", "customers", "get_customer", -1,
             McpResult("platinum"), false),
  };
  return *kOutputs;
}

}  // namespace bench
}  // namespace toolgate
