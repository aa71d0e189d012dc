// SPDX-License-Identifier: Apache-2.0
#include "frr/port.h"

#include <chrono>

#include "frr/vtysh_session.h"

namespace ingot::frr {
namespace {

/// kShowTimeout bounds one show command of a /metrics read (vtysh hanging must not hang it).
constexpr std::chrono::seconds kShowTimeout{5};

/// sessionOptions: a vtysh of the FRR the driver options name, bounded by timeout.
VtyshSessionOptions sessionOptions(
    const FrrDriverOptions& o, std::chrono::milliseconds timeout = VtyshSessionOptions{}.timeout) {
  return VtyshSessionOptions{
      .vtysh = o.vtysh, .pathspace = o.pathspace, .workdir = o.workdir, .timeout = timeout};
}

/// fullReport describes a whole-file reload as a FastApplyReport.
FastApplyReport fullReport(const ApplyReport& r) {
  FastApplyReport report;
  report.path = r.passes == 0 ? ApplyPath::Unchanged : ApplyPath::FullReload;
  report.commands = r.lines_added + r.lines_removed;
  report.send_elapsed = r.elapsed;
  return report;
}

/// withoutEcho drops the command line vtysh echoes before its output.
std::string withoutEcho(std::string text, const std::string& command) {
  if (text.rfind(command + "\n", 0) == 0) {
    text.erase(0, command.size() + 1);
  }
  return text;
}

/// commandLines is a rendered file as configuration commands (no comments, blank lines).
std::vector<std::string> commandLines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line[0] != '!') {
      out.push_back(std::move(line));
    }
    start = end + 1;
  }
  return out;
}

bool sameRender(const frrgen::RenderOptions& a, const frrgen::RenderOptions& b) {
  return a.hostname == b.hostname && a.log_level == b.log_level &&
         a.route_map_delay_timer == b.route_map_delay_timer;
}

/// LocalFrr owns the driver, the whole-file applier, the persistent vtysh and the incremental
/// applier (created on the first apply, again when the render options change or after forget).
class LocalFrr final : public FrrPort {
 public:
  explicit LocalFrr(FrrDriverOptions options)
      : driver_(std::move(options)),
        applier_(driver_),
        reload_(driver_),
        session_(sessionOptions(driver_.options())) {}

  Result<FastApplyReport> apply(const frrgen::CompactModel& model,
                                const frrgen::RenderOptions& render) override {
    if (!incremental_ || !sameRender(render, render_)) {
      render_ = render;
      incremental_ = std::make_unique<IncrementalApplier>(session_, reload_, render_);
    }
    return incremental_->apply(model);
  }

  Result<ApplyReport> reload(const std::string& text) override { return applier_.apply(text); }

  Result<FastApplyReport> applyFile(const frrgen::Model& model,
                                    const frrgen::RenderOptions& render) override {
    auto text = frrgen::render(model, render);
    if (!text) {
      return text.error();
    }
    forget();  // FRR leaves the compact shape: the next apply() starts with a full reload
    // Every line through vtysh first: `network P` given over the compact shape's
    // `network P route-map …` re-points the route in place, where frr-reload.py alone would
    // remove the old line first and withdraw every prefix for a moment. frr-reload.py then
    // removes what is extra and reports errors.
    (void)session_.configure(commandLines(*text));
    session_.reset();
    auto reload = driver_.apply(*text);
    if (!reload) {
      return reload.error();
    }
    return fullReport(*reload);
  }

  Result<FastApplyReport> verify() override {
    return incremental_ ? incremental_->verify() : Result<FastApplyReport>(FastApplyReport{});
  }

  Result<std::string> runningConfig() override {
    auto text = session_.show("show running-config");
    if (text) {
      *text = withoutEcho(std::move(*text), "show running-config");
    }
    return text;
  }

  void forget() override {
    session_.reset();
    incremental_.reset();
  }

  SessionCollector sessionCollector(const SessionMetricStyle& style) override {
    // The session metrics' own vtysh, shared with the collector, which may outlive the port.
    auto reader =
        std::make_shared<SessionReader>(sessionOptions(driver_.options(), kShowTimeout), style);
    return [reader] { return reader->families(); };
  }

 private:
  FrrDriver driver_;
  FrrApplier applier_;
  DriverReload reload_;
  VtyshSession session_;
  frrgen::RenderOptions render_;
  std::unique_ptr<IncrementalApplier> incremental_;
};

}  // namespace

Result<FastApplyReport> FrrPort::apply(const frrgen::CompactModel& model,
                                       const frrgen::RenderOptions& render) {
  auto text = frrgen::renderCompact(model, render);
  if (!text) {
    return text.error();
  }
  const auto start = std::chrono::steady_clock::now();
  auto r = reload(*text);
  if (!r) {
    return r.error();
  }
  FastApplyReport report = fullReport(*r);
  report.commands = 0;
  report.send_elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return report;
}

Result<FastApplyReport> FrrPort::applyFile(const frrgen::Model& model,
                                           const frrgen::RenderOptions& render) {
  auto text = frrgen::render(model, render);
  if (!text) {
    return text.error();
  }
  auto r = reload(*text);
  if (!r) {
    return r.error();
  }
  return fullReport(*r);
}

std::unique_ptr<FrrPort> makeFrrPort(FrrDriverOptions options) {
  return std::make_unique<LocalFrr>(std::move(options));
}

}  // namespace ingot::frr
