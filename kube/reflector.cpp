// SPDX-License-Identifier: Apache-2.0
#include "kube/reflector.h"

#include <algorithm>
#include <condition_variable>

#include "common/json/scan.h"

namespace ingot::k8s {
namespace {

bool interruptibleSleep(Duration d, std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace

Result<RawMeta> rawObjectMeta(std::string_view object) {
  auto m = json::scan(object, {{"metadata"},
                               {"metadata", "name"},
                               {"metadata", "namespace"},
                               {"metadata", "resourceVersion"}});
  if (!m) return m.error();
  const json::Found& metadata = (*m)[0];
  if (!metadata.present || metadata.type == json::Type::Null) {
    return invalidArgument("object has no metadata");
  }
  if (metadata.type != json::Type::Object) return invalidArgument("metadata: not an object");
  RawMeta meta;
  std::string* fields[] = {&meta.name, &meta.namespace_, &meta.resource_version};
  for (size_t i = 0; i < 3; ++i) {
    json::Found& f = (*m)[i + 1];
    if (!f.present || f.type == json::Type::Null) continue;
    if (f.type != json::Type::String) {
      return invalidArgument("metadata: a field is not a string: " + std::string(f.raw));
    }
    *fields[i] = std::move(f.text);
  }
  return meta;
}

Reflector::Reflector(ApiClient& client,
                     ResourceRef ref,
                     std::string ns,
                     ReflectorOptions options,
                     ReflectorSink& sink)
    : client_(client),
      ref_(std::move(ref)),
      ns_(std::move(ns)),
      options_(std::move(options)),
      sink_(sink),
      clock_(options_.clock != nullptr ? *options_.clock : steadyClock()),
      backoff_(options_.backoff, options_.random ? options_.random : defaultRandom()) {
  if (!options_.random) options_.random = defaultRandom();
  if (!options_.sleep) options_.sleep = interruptibleSleep;
}

std::string Reflector::resourceVersion() const {
  std::lock_guard lock(mu_);
  return rv_;
}

Reflector::Stats Reflector::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void Reflector::setResourceVersion(std::string rv) {
  std::lock_guard lock(mu_);
  rv_ = std::move(rv);
}

void Reflector::report(const Error& e) {
  {
    std::lock_guard lock(mu_);
    ++stats_.failures;
  }
  if (options_.on_error) options_.on_error(e);
}

void Reflector::run(std::stop_token stop) {
  bool need_list = true;
  while (!stop.stop_requested()) {
    if (need_list) {
      if (auto r = listAll(stop); !r) {
        if (stop.stop_requested()) return;
        report(r.error());
        if (!options_.sleep(backoff_.next(), stop)) return;
        continue;
      }
      need_list = false;
    }
    const TimePoint started = clock_.now();
    bool delivered = false;
    const WatchOutcome out = watchOnce(stop, delivered);
    const bool quick = !delivered && clock_.now() - started < options_.short_watch;
    if (!afterWatch(out, delivered, quick, need_list, stop)) return;
  }
}

bool Reflector::afterWatch(const WatchOutcome& out,
                           bool delivered,
                           bool quick,
                           bool& need_list,
                           const std::stop_token& stop) {
  switch (out.end) {
    case WatchEnd::Cancelled:
      return false;
    case WatchEnd::Gone: {
      need_list = true;
      quick_gones_ = delivered ? 0 : quick_gones_ + 1;
      std::unique_lock lock(mu_);
      ++stats_.gone_relists;
      lock.unlock();
      // One 410 relists at once; 410s in a row without progress back off.
      return quick_gones_ <= 1 || options_.sleep(backoff_.next(), stop);
    }
    case WatchEnd::Closed:
      if (!quick) {
        backoff_.reset();  // a normal server-side timeout: resume at once
        return true;
      }
      return options_.sleep(backoff_.next(), stop);
    case WatchEnd::Failed:
      report(out.error);
      if (delivered) backoff_.reset();  // the connection was healthy until now
      return options_.sleep(backoff_.next(), stop);
  }
  return true;
}

Result<void> Reflector::listAll(const std::stop_token& stop) {
  std::vector<RawObject> objects;
  std::string rv;
  ListOptions options{options_.label_selector, options_.field_selector, options_.page_size, {}, {}};
  if (auto r = listInto(options, stop, objects, rv); !r) {
    if (r.error().code != ErrorCode::Gone || options.limit == 0) return r;
    // The continue token expired mid-list (the collection changed too much): list in one go.
    objects.clear();
    options.limit = 0;
    if (auto again = listInto(options, stop, objects, rv); !again) return again;
  }
  sink_.replace(std::move(objects));
  setResourceVersion(std::move(rv));
  {
    std::lock_guard lock(mu_);
    ++stats_.lists;
  }
  synced_.store(true);
  backoff_.reset();
  return {};
}

Result<void> Reflector::listInto(ListOptions options,
                                 const std::stop_token& stop,
                                 std::vector<RawObject>& out,
                                 std::string& rv) {
  for (;;) {
    if (stop.stop_requested()) return Error{ErrorCode::Unavailable, "list cancelled"};
    auto page = client_.list(ref_, ns_, options);
    if (!page) return page.error();
    for (auto& item : page->items) {
      auto meta = rawObjectMeta(item);
      if (!meta) {
        report(
            invalidArgument("list " + ref_.plural + ": skipping object: " + meta.error().message));
        continue;
      }
      out.push_back(RawObject{objectKey(meta->namespace_, meta->name),
                              std::move(meta->resource_version), std::move(item)});
    }
    if (page->continue_token.empty()) {
      rv = std::move(page->resource_version);
      return {};
    }
    options.continue_token = std::move(page->continue_token);
  }
}

WatchOutcome Reflector::watchOnce(const std::stop_token& stop, bool& delivered) {
  WatchOptions options;
  options.resource_version = resourceVersion();
  options.label_selector = options_.label_selector;
  options.field_selector = options_.field_selector;
  options.allow_bookmarks = true;
  const double spread = 1.0 + std::clamp(options_.random(), 0.0, 1.0);
  options.timeout_seconds = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(
             std::chrono::duration<double>(options_.min_watch_timeout).count() * spread));
  {
    std::lock_guard lock(mu_);
    ++stats_.watches;
  }
  return client_.watch(
      ref_, ns_, options,
      [&](const WatchEvent& e) {
        delivered = true;
        return onEvent(e) && !stop.stop_requested();
      },
      stop);
}

bool Reflector::onEvent(const WatchEvent& e) {
  if (e.type == WatchEventType::Error) return true;  // clients end the watch on these instead
  auto meta = rawObjectMeta(e.object);
  if (!meta) {
    report(invalidArgument("watch " + ref_.plural + ": skipping " +
                           std::string(watchEventTypeName(e.type)) +
                           " event: " + meta.error().message));
    return true;
  }
  if (e.type != WatchEventType::Bookmark) {
    sink_.apply(e.type, RawObject{objectKey(meta->namespace_, meta->name), meta->resource_version,
                                  e.object});
  }
  if (!meta->resource_version.empty()) setResourceVersion(std::move(meta->resource_version));
  return true;
}

}  // namespace ingot::k8s
