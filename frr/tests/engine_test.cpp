// SPDX-License-Identifier: Apache-2.0
// FrrEngine's decisions against a fake port on an injected time line: which path an apply takes,
// when a read-back is due under each daemon's options (the agent's quiet read-back beside its
// periodic one; ingot-frr's one timer), the retry delays and the fallback after a failure.
#include "frr/engine.h"

#include <deque>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace ingot::frr {
namespace {

using namespace std::chrono_literals;
using Ms = std::chrono::milliseconds;
using TimePoint = FrrEngine::TimePoint;

/// FakePort answers each apply with the next of `paths` (Delta when none is left) or fails with
/// the next of `errors`; it records what it was asked.
class FakePort final : public FrrPort {
 public:
  std::deque<ApplyPath> paths;
  std::deque<Error> errors;
  std::vector<std::string> calls;  ///< "apply", "reload", "file", "verify", "forget"
  std::string drift;               ///< the next verify's drift
  Ms cost{0};                      ///< each call advances *now by cost
  TimePoint* now = nullptr;

  Result<FastApplyReport> apply(const frrgen::CompactModel&,
                                const frrgen::RenderOptions&) override {
    return answer("apply");
  }
  Result<ApplyReport> reload(const std::string& text) override {
    calls.push_back("reload");
    texts.push_back(text);
    if (auto e = failure()) {
      return *e;
    }
    return ApplyReport{1, 1, 0, Ms(7)};
  }
  Result<FastApplyReport> applyFile(const frrgen::Model&, const frrgen::RenderOptions&) override {
    return answer("file");
  }
  Result<FastApplyReport> verify() override {
    auto r = answer("verify", ApplyPath::Unchanged);
    if (r) {
      r->drift = std::exchange(drift, "");
    }
    return r;
  }
  void forget() override { calls.push_back("forget"); }
  std::vector<std::string> texts;

 private:
  std::optional<Error> failure() {
    if (now) {
      *now += cost;
    }
    if (errors.empty()) {
      return std::nullopt;
    }
    Error e = errors.front();
    errors.pop_front();
    return e;
  }
  Result<FastApplyReport> answer(const char* call, ApplyPath otherwise = ApplyPath::Delta) {
    calls.push_back(call);
    if (auto e = failure()) {
      return *e;
    }
    FastApplyReport r;
    r.path = otherwise;
    if (!paths.empty() && std::string(call) != "verify") {
      r.path = paths.front();
      paths.pop_front();
    }
    return r;
  }
};

frrgen::Model model(uint32_t asn, std::string raw = "") {
  frrgen::Model m;
  frrgen::Router r;
  r.asn = asn;
  m.routers = {r};
  m.raw_config = std::move(raw);
  return m;
}

EngineOptions agentOptions() {
  EngineOptions o;
  o.verify_interval = 30s;
  o.verify_after_delta = 1s;
  o.quiet = true;
  return o;
}

EngineOptions ingotFrrOptions() {
  EngineOptions o = agentOptions();
  o.quiet = false;
  o.raw_as_file = true;
  o.skip_unchanged = true;
  o.forget_on_failure = true;
  return o;
}

/// Lab is an engine over a fake port on a time line starting at t0.
struct Lab {
  explicit Lab(EngineOptions options) : engine(port, std::move(options), [this] { return now; }) {
    port.now = &now;
  }
  TimePoint t0{std::chrono::hours(1)};
  TimePoint now = t0;
  FakePort port;
  FrrEngine engine;

  /// at moves the time line to t0 + ms.
  void at(long ms) { now = t0 + Ms(ms); }
  /// nextVerifyMs is the next read-back in ms after t0, -1 for none.
  long nextVerifyMs() const {
    auto n = engine.nextVerify();
    return n ? static_cast<long>(std::chrono::duration_cast<Ms>(*n - t0).count()) : -1;
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(engine)

// Each row: a script of actions at times (ms after t0) and the read-back timer it leaves.
BOOST_AUTO_TEST_CASE(read_back_timers_follow_each_daemons_options) {
  struct Action {
    long at;
    char what;  ///< 'd' a delta, 'f' a full reload, 'u' unchanged, 'v' a read-back
  };
  struct Case {
    const char* name;
    EngineOptions options;
    std::vector<Action> script;
    long next_verify;  ///< ms after t0, -1 = none
  };
  EngineOptions no_interval = agentOptions();
  no_interval.verify_interval = Ms(0);
  const std::vector<Case> cases = {
      {"agent: a delta is read back 1 s after it", agentOptions(), {{0, 'd'}}, 1000},
      {"agent: a further delta pushes it out", agentOptions(), {{0, 'd'}, {500, 'd'}}, 1500},
      {"agent: a full reload cancels it", agentOptions(), {{0, 'd'}, {500, 'f'}}, 30'000},
      {"agent: an unchanged apply keeps it", agentOptions(), {{0, 'd'}, {500, 'u'}}, 1000},
      {"agent: the quiet read-back keeps the period",
       agentOptions(),
       {{0, 'd'}, {1000, 'v'}},
       30'000},
      {"agent: the period restarts when due", agentOptions(), {{0, 'f'}, {30'000, 'v'}}, 60'000},
      {"ingot-frr: the first delta's read-back stands",
       ingotFrrOptions(),
       {{0, 'd'}, {500, 'd'}},
       1000},
      {"ingot-frr: a full reload keeps it", ingotFrrOptions(), {{0, 'd'}, {500, 'f'}}, 1000},
      {"ingot-frr: a read-back starts the period anew",
       ingotFrrOptions(),
       {{0, 'd'}, {1000, 'v'}},
       31'000},
      {"no read-back without an interval", no_interval, {{0, 'd'}}, -1},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Lab lab(c.options);
      uint32_t asn = 64512;
      for (const auto& a : c.script) {
        lab.at(a.at);
        if (a.what == 'v') {
          BOOST_TEST_REQUIRE(lab.engine.verify().ok());
          continue;
        }
        lab.port.paths.push_back(a.what == 'd'   ? ApplyPath::Delta
                                 : a.what == 'f' ? ApplyPath::FullReload
                                                 : ApplyPath::Unchanged);
        BOOST_TEST_REQUIRE(lab.engine.apply(model(asn++)).ok());
      }
      BOOST_TEST(lab.nextVerifyMs() == c.next_verify);
    }
  }
}

BOOST_AUTO_TEST_CASE(next_step_applies_when_dirty_or_failing_else_reads_back_when_due) {
  Lab lab(agentOptions());
  BOOST_TEST((lab.engine.next(true, lab.now) == EngineStep::Apply));
  BOOST_TEST((lab.engine.next(false, lab.now) == EngineStep::Idle));
  BOOST_TEST(lab.engine.apply(model(64512)).ok());
  lab.at(999);
  BOOST_TEST((lab.engine.next(false, lab.now) == EngineStep::Idle));
  lab.at(1000);
  BOOST_TEST((lab.engine.next(false, lab.now) == EngineStep::Verify));
  BOOST_TEST((lab.engine.next(true, lab.now) == EngineStep::Apply));
  lab.port.errors.push_back(Error{ErrorCode::Unavailable, "vtysh: bgpd is not running"});
  BOOST_TEST(!lab.engine.verify().ok());
  BOOST_TEST((lab.engine.next(false, lab.now) == EngineStep::Apply));  // the retry
}

BOOST_AUTO_TEST_CASE(failures_back_off_are_classified_and_fall_back_as_configured) {
  struct Case {
    const char* name;
    EngineOptions options;
    std::vector<std::string> calls;  ///< the port's calls over three failures and a success
  };
  const std::vector<Case> cases = {
      {"agent: the port's next apply reloads the whole file",
       agentOptions(),
       {"apply", "apply", "apply", "apply"}},
      {"ingot-frr: the port forgets, the retry starts from scratch",
       ingotFrrOptions(),
       {"apply", "forget", "apply", "forget", "apply", "forget", "apply"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Lab lab(c.options);
      lab.port.errors = {Error{ErrorCode::Unavailable, "vtysh: bgpd is not running"},
                         Error{ErrorCode::Unavailable, "vtysh did not answer within 5 s"},
                         Error{ErrorCode::InvalidArgument, "% Unknown command"}};
      const std::vector<FailureReason> reasons = {FailureReason::DaemonDown, FailureReason::Timeout,
                                                  FailureReason::Rejected};
      for (int i = 0; i < 3; ++i) {
        const Outcome out = lab.engine.apply(model(64512));
        BOOST_TEST_REQUIRE(!out.ok());
        BOOST_TEST((out.reason == reasons[i]));
        BOOST_TEST(out.failures == i + 1);
        BOOST_TEST(out.retry.count() == retryDelay(i + 1).count());
        BOOST_TEST(lab.engine.failing());
      }
      const Outcome out = lab.engine.apply(model(64512));  // same model: retried all the same
      BOOST_TEST(out.ok());
      BOOST_TEST(out.recovered);
      BOOST_TEST(!lab.engine.failing());
      BOOST_TEST(lab.engine.health()->failures(FailureReason::Rejected) == 1u);
      BOOST_TEST(lab.engine.health()->lastSuccess() > 0);
      BOOST_TEST(lab.port.calls == c.calls, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(each_model_takes_the_path_the_options_give) {
  struct Case {
    const char* name;
    EngineOptions options;
    frrgen::Model model;
    std::string call;
    std::string reason;
  };
  EngineOptions whole = agentOptions();
  whole.whole_file = true;
  const std::vector<Case> cases = {
      {"compact, incremental", agentOptions(), model(64512), "apply", ""},
      {"--frr-apply reload: the per-prefix file through frr-reload.py", whole, model(64512),
       "reload", "--frr-apply reload"},
      {"the agent keeps raw text in the compact path", agentOptions(), model(64512, "! x\n"),
       "apply", ""},
      {"ingot-frr applies raw text as frr-k8s does", ingotFrrOptions(), model(64512, "! x\n"),
       "file", "raw configuration (applied as frr-k8s does: whole file, frr-reload.py)"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Lab lab(c.options);
      lab.port.paths = {ApplyPath::FullReload};
      const Outcome out = lab.engine.apply(c.model);
      BOOST_TEST_REQUIRE(out.ok());
      BOOST_TEST_REQUIRE(lab.port.calls.size() == 1u);
      BOOST_TEST(lab.port.calls[0] == c.call);
      BOOST_TEST(out.report.reload_reason == c.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(whole_file_renders_the_hostname_and_reports_the_reload) {
  EngineOptions o = agentOptions();
  o.whole_file = true;
  o.render.hostname = "node1-host";
  Lab lab(o);
  const Outcome out = lab.engine.apply(model(64512));
  BOOST_TEST_REQUIRE(out.ok());
  BOOST_TEST((out.report.path == ApplyPath::FullReload));
  BOOST_TEST(out.report.send_elapsed.count() == 7);
  BOOST_TEST_REQUIRE(lab.port.texts.size() == 1u);
  BOOST_TEST(lab.port.texts[0].find("hostname node1-host") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(skip_unchanged_hands_an_unchanged_model_over_only_after_a_failure) {
  Lab lab(ingotFrrOptions());
  BOOST_TEST(lab.engine.apply(model(64512)).ok());
  BOOST_TEST(lab.engine.apply(model(64512)).skipped);
  BOOST_TEST(!lab.engine.apply(model(64513)).skipped);
  lab.port.errors = {Error{ErrorCode::Unavailable, "boom"}};
  BOOST_TEST(!lab.engine.verify().ok());
  const Outcome retry = lab.engine.apply(model(64513));
  BOOST_TEST(!retry.skipped);
  BOOST_TEST(retry.ok());
  // Without the option every apply reaches the port.
  Lab agent(agentOptions());
  BOOST_TEST(agent.engine.apply(model(64512)).ok());
  BOOST_TEST(!agent.engine.apply(model(64512)).skipped);
  BOOST_TEST(agent.port.calls.size() == 2u);
}

BOOST_AUTO_TEST_CASE(nothing_is_read_back_before_a_success_or_after_raw_text) {
  Lab lab(ingotFrrOptions());
  BOOST_TEST(lab.engine.verify().skipped);
  BOOST_TEST(lab.engine.apply(model(64512)).ok());
  lab.port.drift = "network 198.51.100.0/32: missing";
  const Outcome read = lab.engine.verify();
  BOOST_TEST(!read.skipped);
  BOOST_TEST(read.report.drift == "network 198.51.100.0/32: missing");
  BOOST_TEST(lab.engine.apply(model(64512, "! raw\n")).ok());
  BOOST_TEST(lab.engine.verify().skipped);
  BOOST_TEST(lab.port.calls == (std::vector<std::string>{"apply", "verify", "file"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_failure_outside_the_port_counts_and_backs_off_too) {
  Lab lab(agentOptions());
  const Outcome out = lab.engine.failed(Error{ErrorCode::NotFound, "vtysh not found"});
  BOOST_TEST((out.reason == FailureReason::FrrMissing));
  BOOST_TEST(out.retry.count() == 1000);
  BOOST_TEST(lab.engine.failing());
  BOOST_TEST(lab.port.calls.empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frr
