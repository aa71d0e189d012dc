// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/memory.h"

#include <malloc.h>

namespace ingot::daemon {

bool tuneMalloc() {
  return mallopt(M_ARENA_MAX, kMallocArenas) == 1;
}

}  // namespace ingot::daemon
