// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdio>
#include <cstdlib>

/// INGOT_RELEASE_ASSERT checks an invariant in every build. Never use it on input from the network,
/// the API server or files: those get a Result error instead.
#define INGOT_RELEASE_ASSERT(cond)                                                      \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (false)

#ifdef NDEBUG
#define INGOT_ASSERT(cond) \
  do {                     \
  } while (false)
#else
#define INGOT_ASSERT(cond) INGOT_RELEASE_ASSERT(cond)
#endif
