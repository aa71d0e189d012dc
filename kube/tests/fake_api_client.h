// SPDX-License-Identifier: Apache-2.0
// A hand-written ApiClient fake (no mocking framework): scripted list/watch/get/write results, and
// a log of the calls made. Thread-safe, so an Informer can drive it from its own thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/json/scan.h"
#include "common/util/quote.h"
#include "kube/api_client.h"
#include "kube/clock.h"

namespace ingot::k8s::testing {

/// objectJson builds a minimal object with metadata and spec.value.
inline std::string objectJson(std::string_view ns,
                              std::string_view name,
                              std::string_view rv,
                              std::string_view value = "") {
  std::string meta = R"({"name":)" + jsonQuote(name);
  if (!ns.empty()) meta += R"(,"namespace":)" + jsonQuote(ns);
  if (!rv.empty()) meta += R"(,"resourceVersion":)" + jsonQuote(rv);
  meta += "}";
  return R"({"metadata":)" + meta + R"(,"spec":{"value":)" + jsonQuote(value) + "}}";
}

/// bookmarkJson builds a BOOKMARK object carrying only a resourceVersion.
inline std::string bookmarkJson(std::string_view rv) {
  return R"({"kind":"Thing","metadata":{"resourceVersion":)" + jsonQuote(rv) + "}}";
}

/// WatchStep scripts one watch call: deliver events, then end with outcome.
struct WatchStep {
  std::vector<WatchEvent> events;
  WatchOutcome outcome{WatchEnd::Closed, {}};
};

/// Write records one mutating call.
struct Write {
  std::string verb;  ///< create, update, patch, updateStatus, patchStatus, remove
  std::string ns;
  std::string name;
  std::string body;
};

class FakeApiClient final : public ApiClient {
 public:
  // Scripts (set before use; guarded by mu for calls made from other threads).
  std::deque<Result<ListPage>> lists;
  std::deque<WatchStep> watches;
  std::deque<Result<std::string>> gets;
  std::deque<Result<std::string>> write_results;  ///< empty: writes succeed and echo the body
  std::function<void()> on_write;  ///< called (unlocked) by every write, e.g. to block it
  /// When set, an exhausted list or watch script requests this stop instead of blocking (for
  /// single-threaded Reflector tests).
  std::stop_source* stop_when_exhausted = nullptr;

  // ingot::k8s::ApiClient
  Result<std::string> get(const ResourceRef&, std::string_view, std::string_view) override {
    std::lock_guard lock(mu_);
    ++get_calls_;
    if (gets.empty()) return Error{ErrorCode::NotFound, "fake: no scripted get"};
    auto r = std::move(gets.front());
    gets.pop_front();
    return r;
  }

  Result<ListPage> list(const ResourceRef&, std::string_view, const ListOptions& o) override {
    std::lock_guard lock(mu_);
    list_calls_.push_back(o);
    if (lists.empty()) {
      if (stop_when_exhausted != nullptr) stop_when_exhausted->request_stop();
      return Error{ErrorCode::Unavailable, "fake: no scripted list"};
    }
    auto r = std::move(lists.front());
    lists.pop_front();
    return r;
  }

  /// watch plays the next WatchStep; with none left it blocks until stop (like a quiet watch).
  WatchOutcome watch(const ResourceRef&,
                     std::string_view,
                     const WatchOptions& o,
                     const WatchHandler& handler,
                     std::stop_token stop) override {
    std::unique_lock lock(mu_);
    watch_calls_.push_back(o);
    if (watches.empty() && stop_when_exhausted != nullptr) {
      stop_when_exhausted->request_stop();
      return {WatchEnd::Cancelled, {}};
    }
    if (watches.empty()) {
      idle_ = true;
      cv_.notify_all();
      cv_.wait(lock, stop, [] { return false; });
      idle_ = false;
      return {WatchEnd::Cancelled, {}};
    }
    WatchStep step = std::move(watches.front());
    watches.pop_front();
    lock.unlock();
    for (const auto& e : step.events) {
      if (!handler(e)) return {WatchEnd::Cancelled, {}};
    }
    return step.outcome;
  }

  Result<std::string> create(const ResourceRef&,
                             std::string_view ns,
                             std::string_view body) override {
    return write("create", ns, "", body);
  }
  Result<std::string> update(const ResourceRef&,
                             std::string_view ns,
                             std::string_view name,
                             std::string_view body) override {
    return write("update", ns, name, body);
  }
  Result<std::string> patch(const ResourceRef&,
                            std::string_view ns,
                            std::string_view name,
                            PatchType type,
                            std::string_view body) override {
    return write(type == PatchType::Merge ? "patch" : "jsonpatch", ns, name, body);
  }
  Result<std::string> updateStatus(const ResourceRef&,
                                   std::string_view ns,
                                   std::string_view name,
                                   std::string_view body) override {
    return write("updateStatus", ns, name, body);
  }
  Result<std::string> patchStatus(const ResourceRef&,
                                  std::string_view ns,
                                  std::string_view name,
                                  PatchType,
                                  std::string_view body) override {
    return write("patchStatus", ns, name, body);
  }
  Result<void> remove(const ResourceRef&, std::string_view ns, std::string_view name) override {
    auto r = write("remove", ns, name, "");
    if (!r) return r.error();
    return {};
  }

  /// waitIdle blocks until a watch call found the script exhausted (or the timeout).
  bool waitIdle(Duration timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [this] { return idle_; });
  }

  std::vector<ListOptions> listCalls() const {
    std::lock_guard lock(mu_);
    return list_calls_;
  }
  std::vector<WatchOptions> watchCalls() const {
    std::lock_guard lock(mu_);
    return watch_calls_;
  }
  std::vector<Write> writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }
  int getCalls() const {
    std::lock_guard lock(mu_);
    return get_calls_;
  }

 private:
  Result<std::string> write(const char* verb,
                            std::string_view ns,
                            std::string_view name,
                            std::string_view body) {
    if (on_write) on_write();
    std::lock_guard lock(mu_);
    writes_.push_back(Write{verb, std::string(ns), std::string(name), std::string(body)});
    if (write_results.empty()) return std::string(body);
    auto r = std::move(write_results.front());
    write_results.pop_front();
    return r;
  }

  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  bool idle_ = false;
  int get_calls_ = 0;
  std::vector<ListOptions> list_calls_;
  std::vector<WatchOptions> watch_calls_;
  std::vector<Write> writes_;
};

}  // namespace ingot::k8s::testing
