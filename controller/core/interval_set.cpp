// SPDX-License-Identifier: Apache-2.0
#include "controller/core/interval_set.h"

#include <iterator>
#include <utility>

namespace ingot::controller {
namespace {

constexpr net::U128 kMax = ~net::U128{0};

}  // namespace

std::map<net::U128, net::U128>::const_iterator IntervalSet::runContaining(net::U128 x) const {
  auto it = runs_.upper_bound(x);
  if (it == runs_.begin()) {
    return runs_.end();
  }
  --it;
  return it->second >= x ? it : runs_.end();
}

bool IntervalSet::contains(net::U128 x) const {
  return runContaining(x) != runs_.end();
}

bool IntervalSet::insert(net::U128 x) {
  // One search: next is the first run starting after x, prev the run before it (if any).
  auto next = runs_.upper_bound(x);
  auto prev = next == runs_.begin() ? runs_.end() : std::prev(next);
  if (prev != runs_.end() && prev->second >= x) {
    return false;  // already present
  }
  const bool joins_prev = prev != runs_.end() && x != 0 && prev->second == x - 1;
  const bool joins_next = x != kMax && next != runs_.end() && next->first == x + 1;
  // Runs are extended in place; only a merge of two runs frees a node, and only a value with
  // no neighbour allocates one (the common case, an address after a run, allocates nothing).
  if (joins_prev && joins_next) {
    prev->second = next->second;
    runs_.erase(next);
  } else if (joins_prev) {
    prev->second = x;
  } else if (joins_next) {
    auto node = runs_.extract(next);
    node.key() = x;
    runs_.insert(std::move(node));
  } else {
    runs_.emplace_hint(next, x, x);
  }
  if (size_ != kMax) {
    ++size_;
  }
  return true;
}

bool IntervalSet::erase(net::U128 x) {
  auto it = runContaining(x);
  if (it == runs_.end()) {
    return false;
  }
  const net::U128 first = it->first;
  const net::U128 last = it->second;
  runs_.erase(it);
  if (first < x) {
    runs_.emplace(first, x - 1);
  }
  if (x < last) {
    runs_.emplace(x + 1, last);
  }
  // A set holding every U128 has a saturated size; its exact size after one erase is kMax.
  if (!(first == 0 && last == kMax)) {
    --size_;
  }
  return true;
}

std::optional<net::U128> IntervalSet::firstAbsentAtOrAfter(net::U128 x) const {
  auto it = runContaining(x);
  if (it == runs_.end()) {
    return x;
  }
  // Runs are maximal, so the value after a run is absent.
  if (it->second == kMax) {
    return std::nullopt;
  }
  return it->second + 1;
}

void IntervalSet::clear() {
  runs_.clear();
  size_ = 0;
}

}  // namespace ingot::controller
