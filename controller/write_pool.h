// SPDX-License-Identifier: Apache-2.0
// WritePool applies independent API writes concurrently. Decisions stay on the reconcile worker
// (one thread, docs/architecture.md); only the I/O that applies them fans out, so a full pass over
// ten thousand Services is not bound by one request's round trip.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ingot::controller {

/// WritePool runs batches of tasks on a fixed set of threads. runAll is called from one thread
/// at a time (the reconcile worker); tasks must not touch the worker's state, only their own
/// result slot.
class WritePool {
 public:
  /// threads <= 1 runs every task inline on the caller.
  explicit WritePool(size_t threads);
  ~WritePool();

  WritePool(const WritePool&) = delete;
  WritePool& operator=(const WritePool&) = delete;

  /// runAll runs every task and returns when all have finished.
  void runAll(std::vector<std::function<void()>> tasks);

 private:
  void run(const std::stop_token& stop);

  std::mutex mu_;
  std::condition_variable_any work_cv_;
  std::condition_variable done_cv_;
  std::deque<std::function<void()>> tasks_;
  size_t pending_ = 0;
  std::vector<std::jthread> threads_;
};

}  // namespace ingot::controller
