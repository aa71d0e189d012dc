// SPDX-License-Identifier: Apache-2.0
#include "controller/write_pool.h"

namespace ingot::controller {

WritePool::WritePool(size_t threads) {
  if (threads <= 1) return;
  for (size_t i = 0; i < threads; ++i) {
    threads_.emplace_back([this](std::stop_token stop) { run(stop); });
  }
}

WritePool::~WritePool() {
  for (auto& t : threads_) t.request_stop();
  work_cv_.notify_all();
  threads_.clear();  // joins
}

void WritePool::runAll(std::vector<std::function<void()>> tasks) {
  if (threads_.empty() || tasks.size() == 1) {
    for (auto& t : tasks) t();
    return;
  }
  std::unique_lock lock(mu_);
  pending_ += tasks.size();
  for (auto& t : tasks) tasks_.push_back(std::move(t));
  work_cv_.notify_all();
  done_cv_.wait(lock, [this] { return pending_ == 0; });
}

void WritePool::run(const std::stop_token& stop) {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, stop, [this] { return !tasks_.empty(); });
    if (tasks_.empty()) return;  // stop requested
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
    if (--pending_ == 0) done_cv_.notify_all();
  }
}

}  // namespace ingot::controller
