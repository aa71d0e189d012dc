// SPDX-License-Identifier: Apache-2.0
#include "agent/memberlist/core/options.h"

#include <map>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

namespace ml = ingot::agent::memberlist;
using std::chrono::milliseconds;

BOOST_AUTO_TEST_SUITE(options)

BOOST_AUTO_TEST_CASE(env_then_flags_as_metallb_names_them) {
  const std::map<std::string, std::string> env = {{"METALLB_ML_BIND_ADDR", "10.0.0.5"},
                                                  {"METALLB_ML_LABELS", "app=metallb"},
                                                  {"METALLB_ML_BIND_PORT", "7000"},
                                                  {"METALLB_ML_SECRET_KEY_PATH", "/etc/ml"}};
  auto o = ml::membershipFromEnv([&](const std::string& k) -> std::optional<std::string> {
    auto it = env.find(k);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  BOOST_REQUIRE(o.has_value());
  BOOST_TEST(o->enabled());
  BOOST_TEST(o->bind_port == 7000);
  BOOST_TEST(o->secretFile() == "/etc/ml/secretkey");
  BOOST_TEST(*ml::parseMembershipFlag("--ml-bindport", "7946", *o));
  BOOST_TEST(*ml::parseMembershipFlag("--ml-wan-config", "true", *o));
  BOOST_TEST(o->bind_port == 7946);
  BOOST_TEST(o->wan_config);
  BOOST_TEST(!*ml::parseMembershipFlag("--node-name", "x", *o));
  auto bad = ml::parseMembershipFlag("--ml-bindport", "70000", *o);
  BOOST_REQUIRE(!bad.has_value());
  BOOST_TEST(bad.error().message.find("--ml-bindport") != std::string::npos);
  o->labels.clear();
  BOOST_TEST(!o->enabled());
}

BOOST_AUTO_TEST_CASE(go_durations_parse_or_name_the_field) {
  struct Case {
    std::string text;
    int64_t ns;  // -1: error
  };
  const std::vector<Case> cases = {{"500ms", 500000000},
                                   {"1s", 1000000000},
                                   {"1m30s", 90000000000},
                                   {"1.5s", 1500000000},
                                   {"250us", 250000},
                                   {"0", 0},
                                   {"5", -1},
                                   {"1d", -1},
                                   {"ms", -1},
                                   {"", -1}};
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.text) {
      auto d = ml::goDuration(c.text, "ProbeInterval");
      BOOST_TEST(d.has_value() == (c.ns >= 0));
      if (d && c.ns >= 0) {
        BOOST_TEST(d->count() == c.ns);
      } else if (!d) {
        BOOST_TEST(d.error().message.find("ProbeInterval") != std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(tuning_json_overrides_timing_and_rejects_bad_fields) {
  std::vector<std::string> ignored;
  auto t = ml::parseTuning(R"({"ProbeInterval":"1s","ProbeTimeout":"500ms","SuspicionMult":4,
      "GossipInterval":200000000,"DisableTcpPings":true,"EnableCompression":true,
      "UDPBufferSize":1400,"QueueCheckInterval":"30s"})",
                           ml::Timing::fast(), &ignored);
  BOOST_REQUIRE(t.has_value());
  BOOST_TEST(t->probe_interval.count() == 1000);
  BOOST_TEST(t->probe_timeout.count() == 500);
  BOOST_TEST(t->gossip_interval.count() == 200);
  BOOST_TEST(t->suspicion_mult == 4);
  BOOST_TEST(t->disable_tcp_pings);
  BOOST_TEST(t->push_pull_interval == ml::Timing::fast().push_pull_interval);
  BOOST_TEST(ignored.size() == 2U);
  struct Case {
    std::string json;
    std::string needle;
  };
  const std::vector<Case> bad = {
      {R"({"ProbeIntervall":"1s"})", "unknown field ProbeIntervall"},
      {R"({"ProbeInterval":"soon"})", "ProbeInterval"},
      {R"({"SuspicionMult":"4"})", "SuspicionMult: expected a positive integer"},
      {R"({"DisableTcpPings":1})", "DisableTcpPings: expected true or false"},
      {R"({"ProbeInterval":"0"})", "must be positive"},
      {R"([1])", "expected a JSON object"},
      {R"({"ProbeInterval":)", "memberlist tuning"},
  };
  for (const Case& c : bad) {
    BOOST_TEST_CONTEXT(c.json) {
      auto r = ml::parseTuning(c.json, ml::Timing::fast());
      BOOST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.find(c.needle) != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(wan_config_selects_go_wan_timing) {
  BOOST_TEST(ml::baseTiming(true).probe_interval.count() == 5000);
  BOOST_TEST(ml::baseTiming(false).probe_interval == ml::Timing::fast().probe_interval);
}

BOOST_AUTO_TEST_SUITE_END()
