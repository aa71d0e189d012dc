// SPDX-License-Identifier: Apache-2.0
#include "agent/frr_apply.h"

#include <chrono>

#include "frr/session_metrics.h"
#include "frrgen/compact.h"

namespace ingot::agent {
namespace {

/// kShowTimeout bounds one show command of a /metrics read (vtysh hanging must not hang it).
constexpr std::chrono::seconds kShowTimeout{5};

/// DriverApply owns the driver, the whole-file applier, the vtysh session and the incremental
/// applier (created on the first applyModel, again when the render options change).
class DriverApply final : public FrrApply {
 public:
  explicit DriverApply(bgp::FrrDriverOptions options)
      : driver_(std::move(options)), applier_(driver_), reload_(driver_) {
    bgp::VtyshSessionOptions v;
    v.vtysh = driver_.options().vtysh;
    v.pathspace = driver_.options().pathspace;
    v.workdir = driver_.options().workdir;
    bgp::VtyshSessionOptions show = v;
    show.timeout = kShowTimeout;
    session_ = std::make_unique<bgp::VtyshSession>(std::move(v));
    reader_ = std::make_shared<bgp::SessionReader>(std::move(show), bgp::kMetalLbSessions);
  }

  Result<bgp::ApplyReport> apply(const std::string& text) override { return applier_.apply(text); }

  Result<bgp::FastApplyReport> applyModel(const frrgen::Model& model,
                                          const frrgen::RenderOptions& render) override {
    auto compacted = frrgen::compact(model);
    if (!compacted) {
      return compacted.error();
    }
    if (!incremental_ || render.hostname != render_.hostname ||
        render.log_level != render_.log_level ||
        render.route_map_delay_timer != render_.route_map_delay_timer) {
      render_ = render;
      incremental_ = std::make_unique<bgp::IncrementalApplier>(*session_, reload_, render_);
    }
    return incremental_->apply(*compacted);
  }

  Result<bgp::FastApplyReport> verify() override {
    return incremental_ ? incremental_->verify()
                        : Result<bgp::FastApplyReport>(bgp::FastApplyReport{});
  }

  SessionCollector sessionCollector() override {
    return [reader = reader_] { return reader->families(); };
  }

 private:
  bgp::FrrDriver driver_;
  bgp::FrrApplier applier_;
  bgp::DriverReload reload_;
  std::unique_ptr<bgp::VtyshSession> session_;
  frrgen::RenderOptions render_;
  std::unique_ptr<bgp::IncrementalApplier> incremental_;
  /// The session metrics' own vtysh, shared with the collector, which may outlive this.
  std::shared_ptr<bgp::SessionReader> reader_;
};

}  // namespace

Result<bgp::FastApplyReport> FrrApply::applyModel(const frrgen::Model& model,
                                                  const frrgen::RenderOptions& render) {
  auto compacted = frrgen::compact(model);
  if (!compacted) {
    return compacted.error();
  }
  auto text = frrgen::renderCompact(*compacted, render);
  if (!text) {
    return text.error();
  }
  const auto start = std::chrono::steady_clock::now();
  auto r = apply(*text);
  if (!r) {
    return r.error();
  }
  bgp::FastApplyReport report;
  report.path = r->passes == 0 ? bgp::ApplyPath::Unchanged : bgp::ApplyPath::FullReload;
  report.send_elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return report;
}

std::unique_ptr<FrrApply> makeFrrApply(bgp::FrrDriverOptions options) {
  return std::make_unique<DriverApply>(std::move(options));
}

}  // namespace ingot::agent
