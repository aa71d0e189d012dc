// SPDX-License-Identifier: Apache-2.0
// core/v1 Events with client-side aggregation and rate limiting (client-go's EventCorrelator), so a
// reconcile loop that fails hot cannot flood the API server (MetalLB #2387: 24,000 events in ten
// minutes). The decision logic (EventCorrelator) is pure: time is passed in.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>

#include "common/util/result.h"
#include "kube/api_client.h"
#include "kube/backoff.h"

namespace ingot::k8s {

using SystemTime = std::chrono::system_clock::time_point;

/// ObjectReference identifies the object an Event is about (core/v1 ObjectReference).
struct ObjectReference {
  std::string api_version;  ///< "v1", "metallb.io/v1beta1"
  std::string kind;
  std::string namespace_;  ///< "" for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  friend bool operator==(const ObjectReference&, const ObjectReference&) = default;
};

/// referenceTo is the reference to a core/v1 `kind` object (anything with api-style metadata).
template <class Object>
ObjectReference referenceTo(std::string kind, const Object& obj) {
  return ObjectReference{"v1",
                         std::move(kind),
                         obj.metadata.namespace_,
                         obj.metadata.name,
                         obj.metadata.uid,
                         obj.metadata.resource_version};
}

enum class EventType { Normal, Warning };

/// EventSource is who reports (source.component / source.host, reportingComponent/Instance).
struct EventSource {
  std::string component;
  std::string host;
};

/// EventCorrelatorOptions; the defaults are client-go's.
struct EventCorrelatorOptions {
  size_t max_entries = 4096;      ///< per cache (spam, aggregation, dedupe); least recent evicted
  double spam_qps = 1.0 / 300.0;  ///< per-object refill: one event per five minutes...
  int spam_burst = 25;            ///< ...after a burst of 25
  size_t similar_threshold = 10;  ///< distinct messages for one object+reason before combining
  std::chrono::seconds similar_window{600};  ///< a quiet period that resets the similar count
};

/// EventAction is what the recorder must do for one observed event.
enum class EventAction {
  Create,  ///< POST a new Event object
  Patch,   ///< PATCH count/lastTimestamp/message of the existing Event object
  Drop,    ///< rate limited: send nothing
};

/// EventRecord is the desired state of one Event object.
struct EventRecord {
  std::string name;        ///< metadata.name: "<object>.<hex nanoseconds>"
  std::string namespace_;  ///< the object's namespace, "default" for cluster-scoped objects
  ObjectReference object;
  EventType type = EventType::Normal;
  std::string reason;
  std::string message;
  std::int32_t count = 1;
  SystemTime first_timestamp;
  SystemTime last_timestamp;
};

struct EventDecision {
  EventAction action = EventAction::Drop;
  EventRecord record;
};

/// EventCorrelator decides, for each occurrence, whether to create an Event, bump the count of an
/// existing one, or drop it. In order: (1) a token bucket per source+object drops the excess;
/// (2) once an object+reason has produced similar_threshold distinct messages within the window,
/// further ones are folded into one "(combined from similar events): <message>" Event; (3) an
/// occurrence identical to an earlier one (same object, type, reason, message) bumps that Event's
/// count instead of creating a new object. Deterministic for a given sequence of (input, now).
/// Not thread-safe; EventRecorder locks around it.
class EventCorrelator {
 public:
  explicit EventCorrelator(EventSource source, EventCorrelatorOptions options = {});

  EventDecision observe(const ObjectReference& object,
                        EventType type,
                        std::string_view reason,
                        std::string_view message,
                        SystemTime now);

 private:
  template <typename V>
  class Lru;
  struct Seen {
    std::string name;
    std::int32_t count = 0;
    SystemTime first_timestamp;
  };
  struct Similar {
    std::set<std::string> messages;
    SystemTime last;
  };

  EventSource source_;
  EventCorrelatorOptions options_;
  std::shared_ptr<Lru<TokenBucket>> spam_;
  std::shared_ptr<Lru<Similar>> similar_;
  std::shared_ptr<Lru<Seen>> seen_;
};

/// eventTypeName returns "Normal" or "Warning".
std::string_view eventTypeName(EventType type);

/// formatTimestamp renders t as RFC 3339 UTC with seconds ("2024-05-01T12:00:00Z").
std::string formatTimestamp(SystemTime t);
/// formatTimestampMs renders a Unix time in milliseconds the same way.
std::string formatTimestampMs(int64_t unix_ms);

/// eventJson renders the full core/v1 Event object for record.
std::string eventJson(const EventRecord& record, const EventSource& source);

/// eventPatchJson renders the merge patch that updates count, lastTimestamp and message.
std::string eventPatchJson(const EventRecord& record);

/// writeEvent performs a decision against the API: Create POSTs the Event; Patch PATCHes it and,
/// when the Event no longer exists (404), creates it again with the current count, as client-go
/// does. Drop does nothing.
Result<void> writeEvent(ApiClient& client,
                        const EventDecision& decision,
                        const EventSource& source);

/// EventRecorderOptions configure EventRecorder.
struct EventRecorderOptions {
  EventCorrelatorOptions correlator;
  size_t queue_capacity = 1000;     ///< pending writes; beyond it events are dropped (and counted)
  std::function<SystemTime()> now;  ///< empty = system_clock::now
  std::function<void(const Error&)> on_error;  ///< failed writes (for logs); optional
};

/// EventRecorder records Events without blocking the caller on I/O: record() decides (correlator)
/// and queues the write; a background thread sends it. Thread-safe. Writes still queued when the
/// recorder is destroyed are dropped; call flush() first to deliver them. The client must outlive
/// the recorder.
class EventRecorder {
 public:
  EventRecorder(ApiClient& client, EventSource source, EventRecorderOptions options = {});
  ~EventRecorder();

  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  /// record reports one occurrence of an event about object.
  void record(const ObjectReference& object,
              EventType type,
              std::string_view reason,
              std::string_view message);

  /// flush waits until every queued write has been attempted, or the timeout; returns true when
  /// the queue drained.
  bool flush(Duration timeout);

  struct Stats {
    std::uint64_t created = 0;
    std::uint64_t patched = 0;
    std::uint64_t rate_limited = 0;  ///< dropped by the correlator
    std::uint64_t queue_full = 0;    ///< dropped because the queue was full
    std::uint64_t failed = 0;        ///< writes the API refused or that could not be sent
  };
  Stats stats() const;

 private:
  void run(std::stop_token stop);

  ApiClient& client_;
  EventSource source_;
  EventRecorderOptions options_;
  mutable std::mutex mu_;
  std::condition_variable_any cv_;
  EventCorrelator correlator_;
  std::deque<EventDecision> queue_;
  bool busy_ = false;
  Stats stats_;
  std::jthread worker_;
};

/// EventSink receives the Events a reconciler emits, so reconcilers can be tested with a
/// recording fake; RecorderSink is the production one.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void record(const ObjectReference& object,
                      EventType type,
                      std::string_view reason,
                      std::string_view message) = 0;
};

/// RecorderSink forwards to an EventRecorder, which must outlive it.
class RecorderSink final : public EventSink {
 public:
  explicit RecorderSink(EventRecorder& recorder) : recorder_(recorder) {}
  void record(const ObjectReference& object,
              EventType type,
              std::string_view reason,
              std::string_view message) override {
    recorder_.record(object, type, reason, message);
  }

 private:
  EventRecorder& recorder_;
};

}  // namespace ingot::k8s
