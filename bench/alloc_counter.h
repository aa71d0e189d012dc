// SPDX-License-Identifier: Apache-2.0
// Heap allocation counting for benchmarks: a binary that links alloc_counter.cpp replaces the
// global operator new, and allocationCount() tells how many allocations the process has made.
#pragma once

namespace ingot::bench {

/// allocationCount returns the number of global operator new calls so far (all forms).
long long allocationCount();

}  // namespace ingot::bench
