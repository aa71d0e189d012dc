// SPDX-License-Identifier: Apache-2.0
// Heap allocation counting for benchmarks: a binary that links alloc_counter.cpp interposes
// malloc, calloc and realloc (glibc), so every heap allocation is counted — operator new (which
// calls malloc) as well as C allocators such as RapidJSON's CrtAllocator.
#pragma once

namespace ingot::bench {

/// allocationCount returns the number of malloc, calloc and realloc calls so far.
long long allocationCount();

}  // namespace ingot::bench
