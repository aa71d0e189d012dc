// SPDX-License-Identifier: Apache-2.0
// A tiny simulated cluster for full-pass tests: Services as the API holds them, a Config, and
// the controller's allocator. A pass runs reprocessAll and writes the outcomes back, as the
// controller would through the status subresource.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "controller/core/reprocess.h"
#include "controller/core/service_info.h"
#include "controller/tests/core/test_util.h"

namespace ingot::controller::testing {

/// applyOutcome writes a convergence outcome back into the Service.
inline void applyOutcome(api::Service& svc, const ServiceOutcome& out) {
  if (!out.write) {
    return;
  }
  svc.status = out.status;
  for (const auto& [k, v] : out.set_annotations) {
    svc.metadata.annotations[k] = v;
  }
  for (const auto& k : out.remove_annotations) {
    svc.metadata.annotations.erase(k);
  }
}

struct ClusterSim {
  config::Config config;
  std::vector<api::Service> services;
  Options options;
  Allocator allocator;
  PlanResult last;

  /// pass runs one full reprocess and applies its writes.
  void pass() {
    auto plan = reprocessAll(allocator, config, services, options);
    BOOST_REQUIRE_MESSAGE(plan.has_value(), "reprocessAll failed");
    for (const auto& out : plan->services) {
      for (auto& svc : services) {
        if (svc.metadata.namespace_ == out.namespace_ && svc.metadata.name == out.name) {
          applyOutcome(svc, out);
        }
      }
    }
    last = std::move(*plan);
  }

  api::Service& svc(const std::string& ns, const std::string& name) {
    for (auto& s : services) {
      if (s.metadata.namespace_ == ns && s.metadata.name == name) {
        return s;
      }
    }
    BOOST_FAIL("no service " << ns << "/" << name);
    return services.front();
  }

  void remove(const std::string& ns, const std::string& name) {
    services.erase(std::remove_if(services.begin(), services.end(),
                                  [&](const api::Service& s) {
                                    return s.metadata.namespace_ == ns && s.metadata.name == name;
                                  }),
                   services.end());
  }

  std::vector<std::string> ipsOf(const std::string& ns, const std::string& name) {
    return statusIps(svc(ns, name));
  }

  std::string poolOf(const std::string& ns, const std::string& name) {
    const auto& a = svc(ns, name).metadata.annotations;
    auto it = a.find(kAnnotationAllocatedFromPool);
    return it == a.end() ? "" : it->second;
  }

  const ServiceOutcome& outcome(const std::string& ns, const std::string& name) const {
    for (const auto& o : last.services) {
      if (o.namespace_ == ns && o.name == name) {
        return o;
      }
    }
    BOOST_FAIL("no outcome for " << ns << "/" << name);
    return last.services.front();
  }
};

}  // namespace ingot::controller::testing
