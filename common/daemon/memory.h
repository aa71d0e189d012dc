// SPDX-License-Identifier: Apache-2.0
// Process-wide malloc settings for the long-running daemons.
#pragma once

namespace ingot::daemon {

/// kMallocArenas is how many glibc malloc arenas a daemon may use. glibc's default is 8 per
/// core, created as threads first allocate; each keeps its own free memory, so the daemons'
/// dozens of mostly idle threads (one per informer) would each pin a partly used heap.
inline constexpr int kMallocArenas = 2;

/// tuneMalloc limits the malloc arenas to kMallocArenas. Call first thing in main, before any
/// thread exists. Returns false when the C library refused (the default then applies).
bool tuneMalloc();

}  // namespace ingot::daemon
