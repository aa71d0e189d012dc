// SPDX-License-Identifier: Apache-2.0
// Peak resident memory for benchmarks: reset the high-water mark before a run, read it after,
// so each benchmark reports its own peak even though they share a process.
#pragma once

#include <fstream>
#include <malloc.h>
#include <string>

namespace ingot::bench {

/// resetPeakRss returns freed heap to the kernel (glibc malloc_trim) and sets VmHWM back to the
/// current RSS (Linux >= 4.0, /proc/self/clear_refs "5").
/// Returns false when the kernel refuses; the peak then covers earlier benchmarks too.
inline bool resetPeakRss() {
  malloc_trim(0);  // hand memory freed by earlier benchmarks back, so it is not counted again
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

/// statusMiB reads one "<field>: N kB" line of /proc/self/status, in MiB (0 if unavailable).
inline double statusMiB(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == field) {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    std::getline(status, key);
  }
  return 0;
}

/// peakRssMiB is VmHWM: the peak resident set since the last resetPeakRss.
inline double peakRssMiB() {
  return statusMiB("VmHWM:");
}

/// rssMiB is VmRSS: the resident set now.
inline double rssMiB() {
  return statusMiB("VmRSS:");
}

}  // namespace ingot::bench
