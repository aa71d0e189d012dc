// SPDX-License-Identifier: Apache-2.0
// Sequence tables for the allocator (MetalLB's TestAssignment style): steps applied in order to
// one allocator, each outcome checked, including that a refused step changes nothing.
#pragma once

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "controller/core/allocator.h"
#include "controller/tests/core/test_util.h"

namespace ingot::controller::testing {

enum class Op { Assign, Allocate, FromPool, Additional, Unassign };

struct Step {
  std::string desc;
  Op op = Op::Assign;
  std::string svc;
  /// Assign: the addresses to assign. Additional: the address held. Others: the expected
  /// result (IPv4 first); empty when the step must fail.
  std::vector<std::string> ips = {};
  std::string want_error = {};  ///< exact message; empty = the step succeeds
  std::string pool = {};        ///< FromPool / Additional
  FamilyRequest fam = v4();
  std::string ports = {};
  std::string sharing = {};
  std::string backend = {};
  api::StringMap labels = {};
  std::vector<std::string> want_held = {};  ///< Additional: addresses held afterwards
};

inline void runStep(Allocator& a, const Step& s) {
  const ServiceRequest req = request(s.svc, s.ports, s.sharing, s.backend, s.labels);
  const auto before = heldBy(a, s.svc);
  std::string error;
  std::vector<std::string> got;
  switch (s.op) {
    case Op::Assign: {
      auto r = a.assign(req, ips(s.ips));
      error = r ? "" : r.error().message;
      break;
    }
    case Op::Allocate:
    case Op::FromPool: {
      auto r =
          s.op == Op::Allocate ? a.allocate(req, s.fam) : a.allocateFromPool(req, s.fam, s.pool);
      error = r ? "" : r.error().message;
      got = r ? ipStrings(*r) : got;
      break;
    }
    case Op::Additional: {
      auto r = a.allocateAdditionalFamily(req, ip(s.ips.front()), s.pool);
      error = r ? "" : r.error().message;
      break;
    }
    case Op::Unassign:
      BOOST_TEST(a.unassign(s.svc) == (s.want_error.empty()));
      return;
  }
  BOOST_TEST(error == s.want_error);
  if (!s.want_error.empty()) {
    BOOST_TEST(heldBy(a, s.svc) == before, "a refused step must not change the allocation");
    return;
  }
  if (s.op == Op::Assign) {
    auto want = ipStrings(ips(s.ips));
    std::sort(want.begin(), want.end(),
              [](const std::string& x, const std::string& y) { return ip(x) < ip(y); });
    BOOST_TEST(heldBy(a, s.svc) == want);
  } else if (s.op == Op::Additional) {
    BOOST_TEST(heldBy(a, s.svc) == s.want_held);
  } else {
    BOOST_TEST(got == s.ips);
    BOOST_TEST(heldBy(a, s.svc) == s.ips);
  }
}

inline void runSteps(Allocator& a, const std::vector<Step>& steps) {
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT(s.desc) {
      runStep(a, s);
    }
  }
}

}  // namespace ingot::controller::testing
