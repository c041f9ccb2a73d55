// Session: pinning the server's tools, reading them again, and what the
// host's own tools/list answers show (rug pulls).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "client/mcp_proxy/answers.h"
#include "client/mcp_proxy/session.h"

namespace toolgate {
namespace mcp_proxy {
namespace {

// A server that pages forever, or lists without end, is not pinned.
constexpr size_t kMaxPages = 1000;
constexpr size_t kMaxTools = 10000;
// tools/list answers held for the first pin.
constexpr size_t kMaxEarlyLists = 64;

}  // namespace

bool Session::IsOwnId(const std::string& id_key) const {
  return id_key.size() > options_.own_id_prefix.size() + 1 &&
         id_key[0] == '"' &&
         absl::string_view(id_key).substr(1, options_.own_id_prefix.size()) ==
             options_.own_id_prefix;
}

void Session::StartRefresh() {
  // Not emplace(): clang finds no default constructor for a nested struct
  // with member initializers while its enclosing class is incomplete.
  refresh_ = Refresh{};
  refresh_->deadline = absl::Now() + options_.list_timeout;
  RequestPage(std::nullopt);
}

void Session::RequestPage(const std::optional<std::string>& cursor) {
  const Json id = absl::StrCat(options_.own_id_prefix, "-", ++own_ids_);
  Json request = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/list"}};
  if (cursor.has_value()) request["params"] = {{"cursor", *cursor}};
  refresh_->id_key = CanonicalJson(id);
  sink_->ToServer(CanonicalJson(request), false);
}

void Session::OwnAnswer(const mesh::StdioMessage& m, const Json& message) {
  // A late answer to an earlier (timed-out) page is not the current one.
  if (!refresh_.has_value() || m.id_key != refresh_->id_key) return;
  if (!m.has_result) {
    RefreshFailed("the server answered tools/list with an error");
    return;
  }
  absl::StatusOr<mesh::ToolsPage> page = mesh::ReadToolsPage(message["result"]);
  if (!page.ok()) {
    RefreshFailed(absl::StrCat("unreadable tools/list answer: ",
                               page.status().message()));
    return;
  }
  for (Json& tool : page->tools) refresh_->tools.push_back(std::move(tool));
  ++refresh_->pages;
  if (!page->next_cursor.has_value()) {
    RefreshDone(std::move(refresh_->tools));
    return;
  }
  if (refresh_->pages >= kMaxPages || refresh_->tools.size() > kMaxTools) {
    RefreshFailed("tools/list goes on past 1000 pages or 10000 tools");
    return;
  }
  RequestPage(page->next_cursor);
}

void Session::RefreshDone(std::vector<Json> tools) {
  if (!run_.has_value()) {
    Pin(std::move(tools));
    return;
  }
  std::vector<mesh::ToolDiff> diffs = pins_.Compare(tools, /*complete=*/true);
  MarkRefused(diffs);
  if (!diffs.empty() && options_.accept_tool_changes) {
    Pin(std::move(tools));
    return;
  }
  ViewSettled();
}

void Session::Pin(std::vector<Json> tools) {
  refresh_->id_key.clear();
  refresh_->deadline = absl::InfiniteFuture();  // The RPCs have deadlines.
  const Sidecar* sidecar = sidecar_;
  const bool posted = executor_->Post(
      [this, sidecar, tools = std::move(tools)]() -> Executor::Completion {
        absl::StatusOr<mcp_proxy::Pinned> pin = sidecar->PinTools(tools);
        return [this, tools, pin = std::move(pin)]() mutable {
          Pinned(std::move(tools), std::move(pin));
        };
      });
  if (!posted) RefreshFailed("the proxy is too busy to pin the tools");
}

void Session::Pinned(std::vector<Json> tools,
                     absl::StatusOr<mcp_proxy::Pinned> pin) {
  if (!pin.ok()) {
    RefreshFailed(
        absl::StrCat("cannot pin the server's tools: ", pin.status().ToString()));
    return;
  }
  const std::optional<RunRef> old = run_;
  run_ = pin->run;
  refused_.clear();
  for (const std::string& name : pins_.Pin(tools)) {
    refused_[name] = {"tool_not_pinned", "", "the server lists it twice"};
  }
  for (const auto& [name, why] : pin->dropped) {
    refused_[name] = {"tool_not_pinned", "", why};
  }
  sink_->Log(absl::StrCat(old.has_value() ? "re-pinned (--accept-tool-changes) "
                                          : "pinned ",
                          pins_.size() - pin->dropped.size(), " tools as ",
                          run_->snapshot_id, " (run ", run_->run_id, ")",
                          pin->dropped.empty() ? "" : "; not pinned: "));
  for (const auto& [name, why] : pin->dropped) {
    sink_->Log(absl::StrCat("  ", name, ": ", why));
  }
  if (old.has_value()) {
    const Sidecar* sidecar = sidecar_;
    executor_->Post([sidecar, run = *old]() -> Executor::Completion {
      sidecar->CloseRun(run);
      return [] {};
    });
  }
  ViewSettled();
}

void Session::RefreshFailed(const std::string& why) {
  sink_->Log(why);
  refresh_.reset();
  refresh_again_ = false;
  const char* reason = run_.has_value() ? "tools_unverified" : "tools_not_pinned";
  const std::string message = absl::StrCat(
      "the server's tools could not be read: ", why);
  std::deque<Call> waiting = std::move(waiting_);
  waiting_.clear();
  for (const Call& c : waiting) {
    sink_->ToHost(ErrorLine(c.id, mesh::DeniedError(reason, message)));
  }
  std::deque<Parked> parked = std::move(parked_);
  parked_.clear();
  for (const Parked& p : parked) {
    sink_->ToHost(ErrorLine(p.id, mesh::DeniedError(reason, message)));
  }
  auto lists = std::move(early_lists_);
  early_lists_.clear();
  for (const auto& [request, line] : lists) sink_->ToHost(line);
}

void Session::ViewSettled() {
  refresh_.reset();
  need_view_ = false;
  if (refresh_again_) {
    refresh_again_ = false;
    need_view_ = true;
    StartRefresh();
    return;
  }
  auto lists = std::move(early_lists_);
  early_lists_.clear();
  for (const auto& [request, line] : lists) {
    absl::StatusOr<Json> message = ParseStrictJson(
        line, JsonLimits{options_.max_message_bytes, 256});
    if (message.ok()) ToolsListAnswer(request, *message, line);
  }
  std::deque<Parked> parked = std::move(parked_);
  parked_.clear();
  for (const Parked& p : parked) Forward(p.id, p.id_key, p.tool, p.run, p.line);
  std::deque<Call> waiting = std::move(waiting_);
  waiting_.clear();
  for (Call& c : waiting) Decide(std::move(c));
}

void Session::ToolsListChanged() {
  need_view_ = true;
  if (refresh_.has_value()) {
    refresh_again_ = true;
  } else if (run_.has_value() || server_has_tools_) {
    StartRefresh();
  }
}

void Session::MarkRefused(const std::vector<mesh::ToolDiff>& diffs) {
  for (const mesh::ToolDiff& d : diffs) {
    if (refused_.contains(d.tool)) continue;
    const absl::string_view change = mesh::ToolChangeName(d.change);
    refused_[d.tool] = {
        "tool_definition_changed", std::string(change),
        absl::StrCat("its definition was ", change,
                     " after the session pinned the server's tools; an "
                     "operator must re-pin (restart the proxy, or run it "
                     "with --accept-tool-changes)")};
    sink_->Log(absl::StrCat("tool \"", d.tool, "\" ", change,
                            " since it was pinned: refused from now on"));
  }
}

void Session::ToolsListAnswer(const Outstanding& request, const Json& message,
                              absl::string_view line) {
  if (!run_.has_value()) {
    // Nothing to compare it with yet: it waits for the pin, so a list the
    // host sees is never one the pins were not held against.
    if (early_lists_.size() >= kMaxEarlyLists) {
      sink_->ToHost(ErrorLine(message["id"], mesh::UnavailableError(
                                                 "the tools are being pinned")));
      return;
    }
    early_lists_.emplace_back(request, std::string(line));
    if (!refresh_.has_value()) StartRefresh();
    return;
  }
  absl::StatusOr<mesh::ToolsPage> page = mesh::ReadToolsPage(message["result"]);
  if (!page.ok()) {
    sink_->ToHost(line);  // Nothing in it can be called: calls are pinned.
    return;
  }
  const bool complete = !request.page && !page->next_cursor.has_value();
  const std::vector<mesh::ToolDiff> diffs = pins_.Compare(page->tools, complete);
  MarkRefused(diffs);
  if (!diffs.empty() && options_.accept_tool_changes &&
      !refresh_.has_value()) {
    need_view_ = true;
    StartRefresh();
  }
  const Json& tools = message["result"]["tools"];
  const bool hide = options_.hide_refused_tools &&
                    std::any_of(tools.begin(), tools.end(), [&](const Json& t) {
                      return t.is_object() && t.contains("name") &&
                             t["name"].is_string() &&
                             refused_.contains(t["name"].get<std::string>());
                    });
  if (!hide) {
    sink_->ToHost(line);
    return;
  }
  Json filtered = message;
  Json& list = filtered["result"]["tools"];
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const Json& t) {
                              return t.is_object() && t.contains("name") &&
                                     t["name"].is_string() &&
                                     refused_.contains(
                                         t["name"].get<std::string>());
                            }),
             list.end());
  sink_->ToHost(CanonicalJson(filtered));
}

void Session::Tick(absl::Time now) {
  if (refresh_.has_value() && now >= refresh_->deadline) {
    RefreshFailed(absl::StrCat("the server did not answer tools/list within ",
                               absl::FormatDuration(options_.list_timeout)));
  }
}

std::optional<absl::Time> Session::NextDeadline() const {
  if (!refresh_.has_value() || refresh_->deadline == absl::InfiniteFuture()) {
    return std::nullopt;
  }
  return refresh_->deadline;
}

}  // namespace mcp_proxy
}  // namespace toolgate
