// SPDX-License-Identifier: Apache-2.0
// The incremental engine when FRR misbehaves, against real FRR 8.4 (CTest label `frr`, root only;
// frr_lab.h: a ToR and a node namespace, eBGP + BFD): a configuration FRR rejects (the error says
// so, FRR keeps the last good one, nothing is left half-applied), bgpd stopped and started again
// (the error names bgpd, no frr-reload.py runs into it, the retry reloads it fully), bgpd
// restarted under a synced applier (the next delta notices and reloads the whole file), and bgpd
// frozen with SIGSTOP (every vtysh call ends at its timeout, the vtysh is killed, and after SIGCONT
// the retry converges). Skips, printing "skipped: <why>", when not root or FRR is missing.
#define BOOST_TEST_MODULE ingot_frr_failure_real
#include <chrono>
#include <cstdio>
#include <memory>
#include <signal.h>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "frr/apply_health.h"
#include "frr/tests/applier_lab.h"
#include "frrgen/compact.h"

namespace utf = boost::unit_test;
using namespace ingot;
using namespace ingot::frr;
using namespace ingot::frr::testing;
using namespace std::chrono_literals;

namespace {

/// kVtyshTimeout bounds every vtysh call of the applier here (production: 30 s).
constexpr auto kVtyshTimeout = 3s;

/// nodeModel announces prefixes to the ToR (no attributes).
frrgen::CompactModel nodeModel(const std::vector<std::string>& prefixes) {
  frrgen::Router r = nodeRouter();
  for (const auto& p : prefixes) {
    r.prefixes_v4.push_back(p);
    r.neighbors[0].outgoing_v4.append(frrgen::OutgoingPrefix{p, 0, {}, {}});
  }
  frrgen::Model m;
  m.routers = {r};
  m.bfd_profiles = {labBfd()};
  auto c = frrgen::compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  return *c;
}

/// Lab is the module's global fixture: every vtysh call of the applier ends within kVtyshTimeout.
struct Lab : ApplierLab {
  Lab() : ApplierLab(kVtyshTimeout) {}
};

std::string nodeRunning() {
  return lab().vtysh(lab().node(), {"show running-config"});
}

bool nodeHas(const std::string& line) {
  return nodeRunning().find(line) != std::string::npos;
}

FastApplyReport apply(const frrgen::CompactModel& m) {
  auto r = Lab::applier->apply(m);
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  BOOST_TEST_MESSAGE("applied: " << applyPathName(r->path) << " " << r->reload_reason);
  return *r;
}

Error applyFails(const frrgen::CompactModel& m) {
  auto r = Lab::applier->apply(m);
  BOOST_TEST_REQUIRE(!r.has_value(), "the apply succeeded");
  BOOST_TEST_MESSAGE("error: " << r.error().message);
  return r.error();
}

/// within polls cond every 100 ms until it holds or limit has passed (whatever each poll costs).
template <typename Cond>
bool within(std::chrono::seconds limit, Cond cond) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) {
      return true;
    }
    std::this_thread::sleep_for(100ms);
  }
  return cond();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// Frozen SIGSTOPs a daemon and SIGCONTs it when it goes out of scope (or on thaw()).
class Frozen {
 public:
  explicit Frozen(pid_t pid) : pid_(pid) { ::kill(pid_, SIGSTOP); }
  ~Frozen() { thaw(); }
  Frozen(const Frozen&) = delete;
  Frozen& operator=(const Frozen&) = delete;
  void thaw() {
    if (pid_ > 0) {
      ::kill(pid_, SIGCONT);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_;
};

const std::vector<std::string> kBase = {"10.2.0.1/32", "10.2.0.2/32"};

/// converge applies kBase and waits until the ToR has it (a clean start for each case).
void converge() {
  auto r = Lab::applier->apply(nodeModel(kBase));
  if (!r) {
    r = Lab::applier->apply(nodeModel(kBase));  // one retry, as the agent's backoff would
  }
  BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
  BOOST_TEST_REQUIRE(within(60s, [] { return torHas("10.2.0.2/32"); }),
                     "the ToR never got the base prefixes; " << diagnostics());
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(Lab);

BOOST_AUTO_TEST_SUITE(failure_frr, *utf::precondition(labRunnable))

BOOST_AUTO_TEST_CASE(a_rejected_delta_keeps_the_last_good_configuration) {
  lab();
  converge();
  // One good prefix and one FRR refuses: vtysh rejects the line, the whole-file fallback is
  // refused by frr-reload.py --test, and FRR is put back on the last good model (no half state:
  // the good line the delta did apply is gone again).
  auto bad = kBase;
  bad.push_back("10.2.0.3/32");
  bad.push_back("10.2.0.300/32");
  const Error e = applyFails(nodeModel(bad));
  BOOST_TEST((classifyFailure(e) == FailureReason::Rejected), e.message);
  BOOST_TEST(has(e.message, "10.2.0.300/32"), e.message);
  BOOST_TEST(!nodeHas("network 10.2.0.3/32"), nodeRunning());
  BOOST_TEST(nodeHas("network 10.2.0.2/32"), nodeRunning());
  BOOST_TEST(torHas("10.2.0.1/32"));
  // The applier knows FRR holds the last good model: a good change goes out as a delta.
  auto good = kBase;
  good.push_back("10.2.0.3/32");
  auto r = apply(nodeModel(good));
  BOOST_TEST((r.path == ApplyPath::Delta));
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.3/32"); }));
}

/// withSecondSession is nodeModel(prefixes) plus a session to 192.168.77.9 (no such router) with
/// the TCP-MD5 key password, sent the same prefixes.
frrgen::CompactModel withSecondSession(const std::vector<std::string>& prefixes,
                                       const std::string& password) {
  frrgen::Router r = nodeRouter();
  frrgen::Neighbor second = r.neighbors[0];
  second.address = "192.168.77.9";
  second.bfd_profile.clear();
  second.password = password;
  r.neighbors.push_back(second);
  for (const auto& p : prefixes) {
    r.prefixes_v4.push_back(p);
    for (auto& n : r.neighbors) {
      n.outgoing_v4.append(frrgen::OutgoingPrefix{p, 0, {}, {}});
    }
  }
  frrgen::Model m;
  m.routers = {r};
  m.bfd_profiles = {labBfd()};
  auto c = frrgen::compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  return *c;
}

BOOST_AUTO_TEST_CASE(a_session_frr_refuses_is_left_out_and_every_other_change_applies) {
  lab();
  converge();
  // A new session whose TCP-MD5 key FRR refuses (81 bytes: validation stops it, this bypasses
  // validation), added with a new prefix: the ToR gets the prefix, the session is reported.
  auto prefixes = kBase;
  prefixes.push_back("10.2.0.4/32");
  auto r = apply(withSecondSession(prefixes, std::string(81, 'k')));
  BOOST_TEST_REQUIRE(r.rejected.size() == 1u);
  BOOST_TEST(r.rejected[0].peer == "192.168.77.9");
  BOOST_TEST(!r.rejected[0].kept_previous);
  BOOST_TEST(has(r.rejected[0].error, "password"), r.rejected[0].error);
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.4/32"); }), diagnostics());
  BOOST_TEST(!nodeHas("neighbor 192.168.77.9"), nodeRunning());
  BOOST_TEST(nodeHas("neighbor 192.168.77.1 remote-as"), nodeRunning());
  // Unchanged, it is not tried again: the next Service change is a delta, and still reports it.
  prefixes.push_back("10.2.0.5/32");
  r = apply(withSecondSession(prefixes, std::string(81, 'k')));
  BOOST_TEST((r.path == ApplyPath::Delta), applyPathName(r.path));
  BOOST_TEST(r.rejected.size() == 1u);
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.5/32"); }), diagnostics());
  // Given a key FRR takes, the session is configured and nothing is reported.
  r = apply(withSecondSession(prefixes, std::string(80, 'k')));
  BOOST_TEST(r.rejected.empty());
  BOOST_TEST(nodeHas("neighbor 192.168.77.9 password " + std::string(80, 'k')), nodeRunning());
  BOOST_TEST(torHas("10.2.0.4/32"));
  apply(nodeModel(kBase));
  BOOST_TEST(!nodeHas("neighbor 192.168.77.9"), nodeRunning());
}

BOOST_AUTO_TEST_CASE(bgpd_stopped_then_back_is_named_and_fully_reloaded) {
  lab();
  converge();
  lab().stopDaemon(lab().node(), "bgpd");
  auto more = kBase;
  more.push_back("10.2.0.4/32");
  // The delta reaches no bgpd: vtysh says so, and the error names it.
  const Error first = applyFails(nodeModel(more));
  BOOST_TEST((classifyFailure(first) == FailureReason::DaemonDown), first.message);
  BOOST_TEST(has(first.message, "bgpd is not running"), first.message);
  // The retry checks the daemons before running frr-reload.py, and fails the same way.
  const Error second = applyFails(nodeModel(more));
  BOOST_TEST((classifyFailure(second) == FailureReason::DaemonDown), second.message);
  BOOST_TEST(has(second.message, "full reload"), second.message);
  // bgpd back with an empty configuration (as watchfrr restarts it): the retry reloads it all.
  BOOST_TEST_REQUIRE(lab().startDaemon(lab().node(), "bgpd") == "");
  auto r = apply(nodeModel(more));
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.4/32") && torHas("10.2.0.1/32"); }),
             diagnostics());
}

BOOST_AUTO_TEST_CASE(bgpd_restarted_under_a_synced_applier_is_noticed_by_the_next_delta) {
  lab();
  converge();
  BOOST_TEST_REQUIRE(Lab::session->configure({}).has_value());  // the session is connected
  lab().stopDaemon(lab().node(), "bgpd");
  BOOST_TEST_REQUIRE(lab().startDaemon(lab().node(), "bgpd") == "");
  auto more = kBase;
  more.push_back("10.2.0.5/32");
  auto r = apply(nodeModel(more));
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(has(r.reload_reason, "bgpd restarted"), r.reload_reason);
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.5/32") && torHas("10.2.0.1/32"); }),
             diagnostics());
  // Nothing is left for the read-back to correct.
  auto v = Lab::applier->verify();
  BOOST_TEST_REQUIRE(v.has_value(), (v ? "" : v.error().message));
  BOOST_TEST(v->drift.empty(), v->drift);
}

BOOST_AUTO_TEST_CASE(a_frozen_bgpd_bounds_every_call_and_the_retry_converges_after_sigcont) {
  lab();
  converge();
  const pid_t bgpd = lab().daemonPid(lab().node(), "bgpd");
  BOOST_TEST_REQUIRE(bgpd > 0);
  auto more = kBase;
  more.push_back("10.2.0.6/32");
  {
    Frozen frozen(bgpd);
    // The delta: vtysh waits on bgpd until the timeout, then it is killed.
    const Error first = applyFails(nodeModel(more));
    BOOST_TEST((classifyFailure(first) == FailureReason::Timeout), first.message);
    BOOST_TEST(Lab::session->pid() == -1);
    // The retry: checking the daemons times out before frr-reload.py would run into bgpd.
    const Error second = applyFails(nodeModel(more));
    BOOST_TEST((classifyFailure(second) == FailureReason::Timeout), second.message);
    BOOST_TEST(has(second.message, "full reload"), second.message);
    BOOST_TEST(!has(second.message, "frr-reload.py"), second.message);
    BOOST_TEST(Lab::session->pid() == -1);
  }
  auto r = apply(nodeModel(more));
  BOOST_TEST((r.path == ApplyPath::FullReload));
  BOOST_TEST(within(60s, [] { return torHas("10.2.0.6/32"); }), diagnostics());
}

BOOST_AUTO_TEST_SUITE_END()
