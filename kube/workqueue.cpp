// SPDX-License-Identifier: Apache-2.0
#include "kube/workqueue.h"

#include <algorithm>

namespace ingot::k8s {

WorkQueue::WorkQueue(WorkQueueOptions options, Clock& clock)
    : options_(options), clock_(clock), bucket_(options.qps, options.burst, clock.now()) {}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  addLocked(key);
}

void WorkQueue::addLocked(const std::string& key) {
  if (shutting_down_ || dirty_.contains(key)) return;
  dirty_.insert(key);
  // A key being processed is re-queued by done(); queuing it now would let a second worker take it.
  if (processing_.contains(key)) return;
  queue_.push_back(key);
  cv_.notify_one();
}

void WorkQueue::addAfter(const std::string& key, Duration delay) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  if (delay <= Duration::zero()) {
    addLocked(key);
    return;
  }
  const TimePoint at = clock_.now() + delay;
  auto it = waiting_.find(key);
  if (it != waiting_.end() && it->second <= at) return;
  waiting_[key] = at;
  heap_.push(Delayed{at, seq_++, key});
  // A blocked get() may be sleeping until a later deadline.
  cv_.notify_all();
}

Duration WorkQueue::addRateLimited(const std::string& key) {
  Duration delay;
  {
    std::lock_guard lock(mu_);
    const int failures = failures_[key]++;
    const Duration per_key = exponentialDelay(options_.base_delay, options_.max_delay, failures);
    delay = std::max(per_key, bucket_.reserve(clock_.now()));
  }
  addAfter(key, delay);
  return delay;
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int WorkQueue::numRequeues(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::promoteDueLocked(TimePoint now) {
  while (!heap_.empty() && heap_.top().at <= now) {
    Delayed d = heap_.top();
    heap_.pop();
    auto it = waiting_.find(d.key);
    if (it == waiting_.end() || it->second != d.at) continue;  // superseded by an earlier add
    waiting_.erase(it);
    addLocked(d.key);
  }
}

std::optional<std::string> WorkQueue::popLocked() {
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  return key;
}

std::optional<TimePoint> WorkQueue::nextDelayedLocked() {
  while (!heap_.empty()) {
    auto it = waiting_.find(heap_.top().key);
    if (it != waiting_.end() && it->second == heap_.top().at) return heap_.top().at;
    heap_.pop();  // stale entry
  }
  return std::nullopt;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  for (;;) {
    const TimePoint now = clock_.now();
    promoteDueLocked(now);
    if (auto key = popLocked()) return key;
    if (shutting_down_) return std::nullopt;
    ++blocked_gets_;
    if (auto next = nextDelayedLocked()) {
      cv_.wait_for(lock, *next - now);
    } else {
      cv_.wait(lock);
    }
    --blocked_gets_;
  }
}

std::optional<std::string> WorkQueue::tryGet() {
  std::lock_guard lock(mu_);
  promoteDueLocked(clock_.now());
  return popLocked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (dirty_.contains(key)) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  waiting_.clear();
  heap_ = {};
  cv_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::len() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

size_t WorkQueue::delayedLen() const {
  std::lock_guard lock(mu_);
  return waiting_.size();
}

size_t WorkQueue::blockedGets() const {
  std::lock_guard lock(mu_);
  return blocked_gets_;
}

std::optional<TimePoint> WorkQueue::nextDelayedAt() {
  std::lock_guard lock(mu_);
  return nextDelayedLocked();
}

}  // namespace ingot::k8s
