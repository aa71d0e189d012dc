// SPDX-License-Identifier: Apache-2.0
// A benchmark's main that lets no exception escape: what the run throws is printed and the exit
// status is 1, so a failed run is never mistaken for figures.
#pragma once

#include <cstdio>
#include <exception>

namespace ingot::bench {

/// guardedMain returns body(argc, argv), or prints what it threw and returns 1.
template <typename Body>
int guardedMain(Body body, int argc, char** argv) noexcept {
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: unknown exception\n", argv[0]);
  }
  return 1;
}

}  // namespace ingot::bench
