// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/frr_port.h"

#include <string>
#include <vector>

#include "frr/vtysh_session.h"
#include "frrgen/render.h"

namespace ingot::ingotfrr {
namespace {

namespace bgp = agent::bgp;

bgp::VtyshSessionOptions sessionOptions(const bgp::FrrDriverOptions& o) {
  bgp::VtyshSessionOptions v;
  v.vtysh = o.vtysh;
  v.pathspace = o.pathspace;
  v.workdir = o.workdir;
  return v;
}

frrgen::RenderOptions renderOptions(std::string hostname) {
  frrgen::RenderOptions r;
  r.hostname = std::move(hostname);
  return r;
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

/// LocalFrr composes frr/'s parts: the driver (frr-reload.py, running-config), a
/// persistent vtysh and the incremental applier over both.
class LocalFrr final : public FrrPort {
 public:
  LocalFrr(bgp::FrrDriverOptions options, std::string hostname)
      : driver_(std::move(options)),
        reload_(driver_),
        session_(sessionOptions(driver_.options())),
        render_(renderOptions(std::move(hostname))),
        applier_(std::make_unique<bgp::IncrementalApplier>(session_, reload_, render_)) {}

  Result<bgp::FastApplyReport> apply(const frrgen::CompactModel& model) override {
    return applier_->apply(model);
  }
  Result<bgp::FastApplyReport> applyFile(const frrgen::Model& model) override {
    auto text = frrgen::render(model, render_);
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
    bgp::FastApplyReport r;
    r.path = reload->passes == 0 ? bgp::ApplyPath::Unchanged : bgp::ApplyPath::FullReload;
    r.reload_reason = "raw configuration (applied as frr-k8s does: whole file, frr-reload.py)";
    r.commands = reload->lines_added + reload->lines_removed;
    r.send_elapsed = reload->elapsed;
    return r;
  }
  Result<bgp::FastApplyReport> verify() override { return applier_->verify(); }
  void forget() override {
    session_.reset();
    applier_ = std::make_unique<bgp::IncrementalApplier>(session_, reload_, render_);
  }
  Result<std::string> runningConfig() override {
    auto text = session_.show("show running-config");
    if (text) {
      *text = withoutEcho(std::move(*text), "show running-config");
    }
    return text;
  }
  Result<std::string> show(const std::string& command) override { return session_.show(command); }

 private:
  bgp::FrrDriver driver_;
  bgp::DriverReload reload_;
  bgp::VtyshSession session_;
  frrgen::RenderOptions render_;
  std::unique_ptr<bgp::IncrementalApplier> applier_;
};

}  // namespace

std::unique_ptr<FrrPort> makeFrrPort(agent::bgp::FrrDriverOptions options, std::string hostname) {
  return std::make_unique<LocalFrr>(std::move(options), std::move(hostname));
}

}  // namespace ingot::ingotfrr
