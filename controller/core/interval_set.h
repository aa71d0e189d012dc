// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <map>
#include <optional>

#include "common/net/ip.h"

namespace ingot::controller {

/// IntervalSet is a set of 128-bit integers stored as maximal runs of consecutive values, so a
/// set of a million sequential values costs one entry. Every operation is O(log r) in the number
/// of runs r. It is the allocator's "used addresses" index: finding the lowest free address never
/// walks addresses one by one.
class IntervalSet {
 public:
  /// contains reports whether x is in the set.
  bool contains(net::U128 x) const;

  /// insert adds x, merging it with adjacent runs. Returns false if x was already present.
  bool insert(net::U128 x);

  /// erase removes x, splitting its run if needed. Returns false if x was absent.
  bool erase(net::U128 x);

  /// firstAbsentAtOrAfter returns the lowest value v >= x that is not in the set, or nullopt
  /// when every value from x up to the U128 maximum is present.
  std::optional<net::U128> firstAbsentAtOrAfter(net::U128 x) const;

  /// size is the number of values in the set (exact; saturates only if every U128 is present).
  net::U128 size() const { return size_; }

  /// runCount is the number of maximal runs (for tests and memory accounting).
  std::size_t runCount() const { return runs_.size(); }

  bool empty() const { return runs_.empty(); }
  void clear();

 private:
  /// runContaining returns the run holding x, or runs_.end().
  std::map<net::U128, net::U128>::const_iterator runContaining(net::U128 x) const;

  std::map<net::U128, net::U128> runs_;  // first -> last (inclusive); disjoint, never adjacent
  net::U128 size_ = 0;
};

}  // namespace ingot::controller
