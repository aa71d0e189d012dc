// SPDX-License-Identifier: Apache-2.0
// Kept in its own translation unit so the compiler does not see malloc behind operator new at the
// call sites (g++ would then warn about free() on a new'd pointer).
#include "bench/alloc_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<long long> g_allocations{0};

}  // namespace

// The sized, aligned-free and nothrow forms of libstdc++ forward to these two.
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) {
    return p;
  }
  throw std::bad_alloc();
}

void operator delete(void* p) noexcept {
  std::free(p);
}

void operator delete(void* p, std::size_t /*n*/) noexcept {
  std::free(p);
}

namespace ingot::bench {

long long allocationCount() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace ingot::bench
