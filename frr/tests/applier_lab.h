// SPDX-License-Identifier: Apache-2.0
// ApplierLab: the live set-up the IncrementalApplier tests share (incremental_real_test.cpp,
// failure_real_test.cpp): frr_lab.h's ToR and node with the ToR configured, and on the node the
// applier the agent runs in frr mode (VtyshSession, with FrrDriver's frr-reload.py as its full
// reload). A test module derives its global fixture from it; its cases skip (printing
// "skipped: <why>") when not root or FRR is missing, through labRunnable. Header-only, like
// frr_lab.h.
#pragma once

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <boost/test/unit_test.hpp>

#include "frr/frr_driver.h"
#include "frr/incremental.h"
#include "frr/tests/frr_lab.h"

namespace ingot::frr::testing {

/// labRunnable is the precondition of the live suites: why the lab cannot run, once, printed.
inline boost::test_tools::assertion_result labRunnable(boost::unit_test::test_unit_id) {
  static const std::string kWhy = whyFrrLabCannotRun();
  boost::test_tools::assertion_result ok(kWhy.empty());
  if (!ok) {
    ok.message() << kWhy;
    std::fprintf(stderr, "skipped: %s\n", kWhy.c_str());  // CTest's SKIP_REGULAR_EXPRESSION
  }
  return ok;
}

/// ApplierLab owns the namespaces and the node's applier for the whole test module (the
/// members are static so that the cases reach them; a module has one global fixture).
struct ApplierLab {
  inline static FrrLab* lab = nullptr;
  inline static std::string error;
  inline static std::unique_ptr<FrrDriver> driver;
  inline static std::unique_ptr<DriverReload> reload;
  inline static std::unique_ptr<VtyshSession> session;
  inline static std::unique_ptr<IncrementalApplier> applier;

  /// ApplierLab starts the lab; vtysh_timeout bounds each vtysh call of the applier (nullopt:
  /// VtyshSession's default). A lab that cannot start leaves `error` for lab() to report.
  explicit ApplierLab(std::optional<std::chrono::seconds> vtysh_timeout = std::nullopt) {
    if (!whyFrrLabCannotRun().empty()) {
      return;
    }
    lab = new FrrLab();
    error = lab->start();
    if (!error.empty()) {
      return;
    }
    error = lab->configure(lab->tor(), kTorConfig);
    FrrDriverOptions o;
    o.pathspace = lab->node();
    o.workdir = lab->dir() + "/driver";
    o.command_timeout = std::chrono::seconds(120);
    driver = std::make_unique<FrrDriver>(o);
    reload = std::make_unique<DriverReload>(*driver);
    VtyshSessionOptions v;
    v.pathspace = lab->node();
    v.workdir = o.workdir;
    if (vtysh_timeout) {
      v.timeout = *vtysh_timeout;
    }
    session = std::make_unique<VtyshSession>(v);
    applier = std::make_unique<IncrementalApplier>(*session, *reload, frrgen::RenderOptions{});
  }
  ~ApplierLab() {
    applier.reset();
    session.reset();
    reload.reset();
    driver.reset();
    delete lab;
    lab = nullptr;
  }
  ApplierLab(const ApplierLab&) = delete;
  ApplierLab& operator=(const ApplierLab&) = delete;
};

/// applierLab returns the running lab, or fails the case when it did not start.
inline FrrLab& lab() {
  BOOST_TEST_REQUIRE(ApplierLab::lab != nullptr);
  BOOST_TEST_REQUIRE(ApplierLab::error.empty(), "lab did not start: " << ApplierLab::error);
  return *ApplierLab::lab;
}

/// flat joins JSON output into one line without indentation.
inline std::string flat(const std::string& json) {
  std::string out;
  bool line_start = true;
  for (char c : json) {
    if (c == '\n') {
      line_start = true;
      continue;
    }
    if (line_start && c == ' ') {
      continue;
    }
    line_start = false;
    out += c;
  }
  return out;
}

/// torRoute is the ToR's `show bgp ipv4 unicast <prefix> json`, on one line.
inline std::string torRoute(const std::string& prefix) {
  return flat(lab().vtysh(lab().tor(), {"show bgp ipv4 unicast " + prefix + " json"}));
}

/// torHas tells whether the ToR has a route for prefix.
inline bool torHas(const std::string& prefix) {
  const std::string route = torRoute(prefix);
  return route.find("\"prefix\":\"" + prefix + "\"") != std::string::npos ||
         route.find("\"prefix\": \"" + prefix + "\"") != std::string::npos;
}

/// diagnostics is what explains a route missing at the ToR.
inline std::string diagnostics() {
  return "node:\n" + lab().vtysh(lab().node(), {"show running-config"}) +
         lab().vtysh(lab().node(), {"show bgp ipv4 unicast summary"}) +
         lab().vtysh(lab().node(), {"show bgp ipv4 unicast"}) + "\nToR:\n" +
         lab().vtysh(lab().tor(), {"show bgp ipv4 unicast summary"});
}

}  // namespace ingot::frr::testing
