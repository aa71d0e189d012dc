// SPDX-License-Identifier: Apache-2.0
// compact() over generated models: every network's class and every neighbor's outbound entries
// say exactly who gets the prefix with which attributes, whatever the overlap, the order of the
// outgoing lists or the mix of families; and a session keeps every field but its outgoing lists.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

#include "frrgen/compact.h"
#include "frrgen/tests/compact_fixtures.h"

namespace ingot::frrgen {
namespace {

using testing::classOf;

// Sent is what a prefix is sent to one neighbor with, in a form that ignores list order.
struct Sent {
  uint32_t local_pref = 0;
  std::set<std::string> communities;
  std::set<std::string> large_communities;
  friend auto operator<=>(const Sent&, const Sent&) = default;
};

Sent sentOf(uint32_t local_pref,
            const std::vector<std::string>& communities,
            const std::vector<std::string>& large) {
  return {local_pref, {communities.begin(), communities.end()}, {large.begin(), large.end()}};
}

// Expected maps a network to what each neighbor (by index) gets, straight from the model.
using Expected = std::map<std::string, std::map<size_t, Sent>>;

Expected expectedOf(const Router& r) {
  Expected out;
  for (const auto* nets : {&r.prefixes_v4, &r.prefixes_v6}) {
    for (const auto& p : *nets) {
      out[p];
    }
  }
  for (size_t j = 0; j < r.neighbors.size(); ++j) {
    for (const auto* list : {&r.neighbors[j].outgoing_v4, &r.neighbors[j].outgoing_v6}) {
      for (const auto& o : *list) {
        if (out.contains(o.prefix)) {
          out[o.prefix][j] = sentOf(o.local_pref, o.communities, o.large_communities);
        }
      }
    }
  }
  return out;
}

// randomRouter: 1-5 neighbors (v4, v6 or dual), 0-40 networks of both families, each neighbor
// sent a random subset of the networks it carries with one of a few attribute sets, its list in
// random order; sometimes a listed prefix the router does not originate.
Router randomRouter(std::mt19937& rng) {
  auto pick = [&rng](uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng); };
  const std::vector<Sent> attrs = {
      {}, {200, {}, {}}, {0, {"64512:7", "65535:65281"}, {}}, {0, {"7:1", "64512:10"}, {"1:2:3"}}};
  Router r;
  r.asn = 64512;
  const uint32_t neighbors = 1 + pick(5);
  for (uint32_t j = 0; j < neighbors; ++j) {
    Neighbor n;
    n.address = "10.0.0." + std::to_string(j + 1);
    n.family = static_cast<NeighborFamily>(pick(3));
    n.remote_as = std::to_string(64513 + j);
    r.neighbors.push_back(n);
  }
  const uint32_t networks = pick(41);
  std::set<std::string> v4;
  std::set<std::string> v6;
  for (uint32_t i = 0; i < networks; ++i) {
    const std::string n = std::to_string(pick(30));
    pick(2) == 0 ? v4.insert("10.1.0." + n + "/32") : v6.insert("fd01::" + n + "/128");
  }
  r.prefixes_v4.assign(v4.begin(), v4.end());
  r.prefixes_v6.assign(v6.begin(), v6.end());
  for (auto& n : r.neighbors) {
    for (const bool is_v4 : {true, false}) {
      if (n.family != NeighborFamily::Dual && (n.family == NeighborFamily::V4) != is_v4) {
        continue;
      }
      auto& list = is_v4 ? n.outgoing_v4 : n.outgoing_v6;
      for (const auto& p : is_v4 ? r.prefixes_v4 : r.prefixes_v6) {
        if (pick(3) != 0) {
          const Sent& a = attrs[pick(static_cast<uint32_t>(attrs.size()))];
          list.append({p,
                       a.local_pref,
                       {a.communities.begin(), a.communities.end()},
                       {a.large_communities.begin(), a.large_communities.end()}});
        }
      }
      if (pick(4) == 0) {
        list.append({is_v4 ? "10.9.0.1/32" : "fd09::1/128", 0, {}, {}});
      }
      std::shuffle(list.begin(), list.end(), rng);
    }
  }
  return r;
}

// checkRouter: per network, the neighbors whose outbound map permits its tag are exactly the
// expected ones, each with its attributes (from the entry, or from the class when set at
// origin); networks share a tag exactly when they are sent alike.
void checkRouter(const Router& in, const CompactModel& c) {
  const CompactRouter& out = c.routers.front();
  const Expected expected = expectedOf(in);
  std::map<std::map<size_t, Sent>, uint32_t> tag_of_signature;
  for (const auto& [prefix, want] : expected) {
    const auto& nets = prefix.find(':') == std::string::npos ? out.networks_v4 : out.networks_v6;
    BOOST_TEST_REQUIRE(nets.contains(prefix), prefix);
    const uint32_t tag = nets.at(prefix);
    const auto [it, inserted] = tag_of_signature.emplace(want, tag);
    BOOST_TEST(it->second == tag, prefix << " shares its sending with another tag");
    const AdvertClass& k = classOf(c, tag);
    std::map<size_t, Sent> got;
    for (size_t j = 0; j < out.neighbors.size(); ++j) {
      for (const auto& e : out.neighbors[j].out) {
        if (e.tag == tag) {
          const Attributes& a = e.attributes.empty() ? k.attributes : e.attributes;
          got[j] = sentOf(a.local_pref, a.communities, a.large_communities);
        }
      }
    }
    BOOST_TEST((got == want), prefix);
  }
  std::set<uint32_t> tags;
  for (const auto& [sig, tag] : tag_of_signature) {
    BOOST_TEST(tags.insert(tag).second, "two different sendings share tag " << tag);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(compact_classes_suite)

BOOST_AUTO_TEST_CASE(generated_models_send_each_prefix_exactly_as_the_model_says) {
  std::mt19937 rng(20261202);
  for (int i = 0; i < 300; ++i) {
    Model m;
    m.routers = {randomRouter(rng)};
    auto c = compact(m);
    BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
    BOOST_TEST_CONTEXT("model " << i) {
      checkRouter(m.routers.front(), *c);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_session_keeps_every_field_but_its_outgoing_lists) {
  Neighbor n;
  n.address = "10.0.0.1";
  n.interface = "eth1";
  n.remote_as = "64513";
  n.family = NeighborFamily::Dual;
  n.vrf = "red";
  n.source_address = "10.0.0.100";
  n.port = 1179;
  n.hold_time = 9;
  n.keepalive_time = 3;
  n.connect_time = 5;
  n.password = "secret";
  n.bfd_profile = "fast";
  n.graceful_restart = true;
  n.ebgp_multi_hop = true;
  n.local_asn = 64600;
  n.outgoing_v4 = {{"10.1.0.1/32", 0, {}, {}}};
  n.outgoing_v6 = {{"fd01::1/128", 0, {}, {}}};
  n.incoming_v4 = {{"10.2.0.0/16", 32, 24}};
  n.incoming_v6 = {{"fd02::/64", std::nullopt, std::nullopt}};
  Model m;
  m.routers = {{64512, "10.0.0.100", "red", {n}, {"10.1.0.1/32"}, {"fd01::1/128"}, {}}};
  auto c = compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  Neighbor want = n;
  want.outgoing_v4.clear();
  want.outgoing_v6.clear();
  BOOST_TEST((c->routers.front().neighbors.front().session == want));
  // receive_all is the one flag left at its default above.
  m.routers.front().neighbors.front().receive_all = true;
  m.routers.front().neighbors.front().incoming_v4.clear();
  m.routers.front().neighbors.front().incoming_v6.clear();
  c = compact(m);
  BOOST_TEST_REQUIRE(c.has_value(), (c ? "" : c.error().message));
  BOOST_TEST(c->routers.front().neighbors.front().session.receive_all);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
