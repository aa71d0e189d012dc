// SPDX-License-Identifier: Apache-2.0
#include "agent/frr_apply.h"

namespace ingot::agent {
namespace {

/// DriverApply owns the driver and the applier that keeps the last good text.
class DriverApply final : public FrrApply {
 public:
  explicit DriverApply(bgp::FrrDriverOptions options)
      : driver_(std::move(options)), applier_(driver_) {}

  Result<bgp::ApplyReport> apply(const std::string& text) override { return applier_.apply(text); }

 private:
  bgp::FrrDriver driver_;
  bgp::FrrApplier applier_;
};

}  // namespace

std::unique_ptr<FrrApply> makeFrrApply(bgp::FrrDriverOptions options) {
  return std::make_unique<DriverApply>(std::move(options));
}

}  // namespace ingot::agent
