// SPDX-License-Identifier: Apache-2.0
#include "kube/events.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "common/json/json.h"
#include "kube/event_message.h"
#include "kube/resources.h"

namespace ingot::k8s {

/// Lru is a bounded map that evicts the least recently used key.
template <typename V>
class EventCorrelator::Lru {
 public:
  explicit Lru(size_t capacity) : capacity_(std::max<size_t>(1, capacity)) {}

  /// find returns the value under key (marking it most recent), or nullptr.
  V* find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }

  /// put stores value under key as most recent, evicting the oldest entry when full.
  V& put(const std::string& key, V value) {
    if (V* existing = find(key)) {
      *existing = std::move(value);
      return *existing;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return order_.front().second;
  }

 private:
  using Order = std::list<std::pair<std::string, V>>;
  size_t capacity_;
  Order order_;
  std::unordered_map<std::string, typename Order::iterator> index_;
};

namespace {

constexpr char kSep = '\x1f';  // cannot occur in names, kinds or UIDs
constexpr std::string_view kCombinedPrefix = "(combined from similar events): ";

std::string join(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) {
    out += p;
    out += kSep;
  }
  return out;
}

/// asTimePoint maps wall time onto the token bucket's time axis; a bucket only ever looks at
/// differences, and ignores time going backwards.
TimePoint asTimePoint(SystemTime t) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(t.time_since_epoch()));
}

std::string eventName(const ObjectReference& object, SystemTime now) {
  const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch());
  char hex[32];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(nanos.count()));
  return object.name + "." + hex;
}

}  // namespace

EventCorrelator::EventCorrelator(EventSource source, EventCorrelatorOptions options)
    : source_(std::move(source)),
      options_(options),
      spam_(std::make_shared<Lru<TokenBucket>>(options.max_entries)),
      similar_(std::make_shared<Lru<Similar>>(options.max_entries)),
      seen_(std::make_shared<Lru<Seen>>(options.max_entries)) {}

EventDecision EventCorrelator::observe(const ObjectReference& object,
                                       EventType type,
                                       std::string_view reason,
                                       std::string_view message,
                                       SystemTime now) {
  const std::string object_key =
      join({source_.component, source_.host, object.kind, object.namespace_, object.name,
            object.uid, object.api_version});
  TokenBucket* bucket = spam_->find(object_key);
  if (bucket == nullptr) {
    bucket = &spam_->put(object_key,
                         TokenBucket(options_.spam_qps, options_.spam_burst, asTimePoint(now)));
  }
  if (!bucket->tryTake(asTimePoint(now))) return {EventAction::Drop, {}};

  EventRecord record{{},
                     object.namespace_.empty() ? "default" : object.namespace_,
                     object,
                     type,
                     std::string(reason),
                     boundEventMessage(message),
                     1,
                     now,
                     now};
  const std::string aggregate_key = object_key + join({eventTypeName(type), reason});
  Similar* similar = similar_->find(aggregate_key);
  if (similar == nullptr || now - similar->last > options_.similar_window) {
    similar = &similar_->put(aggregate_key, Similar{});
  }
  similar->messages.insert(record.message);
  similar->last = now;
  std::string dedupe_key = aggregate_key + record.message;
  if (similar->messages.size() >= options_.similar_threshold) {
    similar->messages.erase(similar->messages.begin());  // keep the set bounded
    record.message = boundEventMessage(std::string(kCombinedPrefix) + record.message);
    dedupe_key = aggregate_key;  // every further similar event lands on one Event
  }

  if (Seen* seen = seen_->find(dedupe_key)) {
    record.name = seen->name;
    record.count = ++seen->count;
    record.first_timestamp = seen->first_timestamp;
    return {EventAction::Patch, std::move(record)};
  }
  record.name = eventName(object, now);
  seen_->put(dedupe_key, Seen{record.name, 1, now});
  return {EventAction::Create, std::move(record)};
}

std::string boundEventMessage(std::string_view message) {
  if (message.size() <= kMaxEventMessageBytes) {
    return std::string(message);
  }
  constexpr std::string_view kEllipsis = " ...";
  size_t cut = kMaxEventMessageBytes - kEllipsis.size();
  // Never split a multi-byte character: back up over continuation bytes (10xxxxxx).
  while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xc0) == 0x80) {
    --cut;
  }
  std::string out(message.substr(0, cut));
  out += kEllipsis;
  return out;
}

std::string_view eventTypeName(EventType type) {
  return type == EventType::Warning ? "Warning" : "Normal";
}

std::string formatTimestampMs(int64_t unix_ms) {
  return formatTimestamp(SystemTime(std::chrono::milliseconds(unix_ms)));
}

std::string formatTimestamp(SystemTime t) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

/// member appends key: string to obj unless omit_empty and value is empty.
void member(json::Value& obj, std::string key, std::string_view value, bool omit_empty = false) {
  if (!omit_empty || !value.empty()) {
    obj.set(std::move(key), json::Value::string(std::string(value)));
  }
}

json::Value involvedObject(const ObjectReference& o) {
  json::Value v = json::Value::object();
  member(v, "apiVersion", o.api_version);
  member(v, "kind", o.kind);
  member(v, "name", o.name);
  member(v, "namespace", o.namespace_, true);
  member(v, "uid", o.uid, true);
  member(v, "resourceVersion", o.resource_version, true);
  return v;
}

}  // namespace

std::string eventJson(const EventRecord& r, const EventSource& source) {
  json::Value metadata = json::Value::object();
  member(metadata, "name", r.name);
  member(metadata, "namespace", r.namespace_);
  json::Value from = json::Value::object();
  member(from, "component", source.component);
  member(from, "host", source.host, true);
  json::Value event = json::Value::object();
  member(event, "apiVersion", "v1");
  member(event, "kind", "Event");
  event.set("metadata", std::move(metadata));
  event.set("involvedObject", involvedObject(r.object));
  member(event, "type", eventTypeName(r.type));
  member(event, "reason", r.reason);
  member(event, "message", r.message);
  event.set("source", std::move(from));
  member(event, "firstTimestamp", formatTimestamp(r.first_timestamp));
  member(event, "lastTimestamp", formatTimestamp(r.last_timestamp));
  event.set("count", json::Value::number(static_cast<int64_t>(r.count)));
  member(event, "reportingComponent", source.component);
  member(event, "reportingInstance", source.host);
  return json::write(event);
}

std::string eventPatchJson(const EventRecord& r) {
  json::Value patch = json::Value::object();
  patch.set("count", json::Value::number(static_cast<int64_t>(r.count)));
  member(patch, "lastTimestamp", formatTimestamp(r.last_timestamp));
  member(patch, "message", r.message);
  return json::write(patch);
}

Result<void> writeEvent(ApiClient& client, const EventDecision& d, const EventSource& source) {
  const EventRecord& r = d.record;
  if (d.action == EventAction::Drop) return {};
  if (d.action == EventAction::Patch) {
    auto patched =
        client.patch(resources::kEvents, r.namespace_, r.name, PatchType::Merge, eventPatchJson(r));
    if (patched) return {};
    if (patched.error().code != ErrorCode::NotFound) return patched.error();
    // The Event expired or was deleted: recreate it, keeping the count.
  }
  auto created = client.create(resources::kEvents, r.namespace_, eventJson(r, source));
  if (!created && created.error().code != ErrorCode::AlreadyExists) return created.error();
  return {};
}

EventRecorder::EventRecorder(ApiClient& client, EventSource source, EventRecorderOptions options)
    : client_(client),
      source_(std::move(source)),
      options_(std::move(options)),
      correlator_(source_, options_.correlator),
      worker_([this](std::stop_token stop) { run(stop); }) {}

EventRecorder::~EventRecorder() {
  worker_.request_stop();
  if (worker_.joinable()) worker_.join();
}

void EventRecorder::record(const ObjectReference& object,
                           EventType type,
                           std::string_view reason,
                           std::string_view message) {
  const SystemTime now = options_.now ? options_.now() : std::chrono::system_clock::now();
  std::lock_guard lock(mu_);
  EventDecision decision = correlator_.observe(object, type, reason, message, now);
  if (decision.action == EventAction::Drop) {
    ++stats_.rate_limited;
    return;
  }
  if (queue_.size() >= options_.queue_capacity) {
    ++stats_.queue_full;
    return;
  }
  queue_.push_back(std::move(decision));
  cv_.notify_all();
}

void EventRecorder::run(std::stop_token stop) {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, stop, [this] { return !queue_.empty(); });
    if (stop.stop_requested()) return;
    EventDecision decision = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Result<void> written = writeEvent(client_, decision, source_);
    if (!written && options_.on_error) options_.on_error(written.error());
    lock.lock();
    busy_ = false;
    if (!written) {
      ++stats_.failed;
    } else if (decision.action == EventAction::Create) {
      ++stats_.created;
    } else {
      ++stats_.patched;
    }
    cv_.notify_all();
  }
}

bool EventRecorder::flush(Duration timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return queue_.empty() && !busy_; });
}

EventRecorder::Stats EventRecorder::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace ingot::k8s
