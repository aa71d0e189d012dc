// SPDX-License-Identifier: Apache-2.0
#include "bench/alloc_counter.h"

#include <atomic>
#include <cstddef>

extern "C" {
// NOLINTBEGIN(bugprone-reserved-identifier,readability-identifier-naming): glibc's own names.
void* __libc_malloc(std::size_t n);
void* __libc_calloc(std::size_t n, std::size_t m);
void* __libc_realloc(void* p, std::size_t n);
// NOLINTEND(bugprone-reserved-identifier,readability-identifier-naming)
}

namespace {

std::atomic<long long> g_allocations{0};

}  // namespace

// Definitions in the executable take precedence over glibc's for every caller in the process,
// including libstdc++'s operator new; the counter is relaxed (it is only read between runs).
extern "C" void* malloc(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}

extern "C" void* calloc(std::size_t n, std::size_t m) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, m);
}

extern "C" void* realloc(void* p, std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}

namespace ingot::bench {

long long allocationCount() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace ingot::bench
