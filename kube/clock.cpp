// SPDX-License-Identifier: Apache-2.0
#include "kube/clock.h"

namespace ingot::k8s {
namespace {

class SteadyClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

Clock& steadyClock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace ingot::k8s
