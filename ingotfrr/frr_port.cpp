// SPDX-License-Identifier: Apache-2.0
#include "ingotfrr/frr_port.h"

#include "frr/vtysh_session.h"

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
