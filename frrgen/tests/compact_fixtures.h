// SPDX-License-Identifier: Apache-2.0
// Small merged models for the compact-shape tests (frrgen's and frr/'s): one router, AS
// 64512, with IPv4 neighbors 10.0.0.1 and 10.0.0.2 and IPv6 neighbor fd00::1, and the prefixes
// each neighbor is sent; and a lookup in the compacted model.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "frrgen/compact.h"
#include "frrgen/model.h"

namespace ingot::frrgen::testing {

/// Send is one prefix sent to some neighbors (by address) with attributes.
struct Send {
  std::string prefix;
  std::vector<std::string> to;
  uint32_t local_pref = 0;
  std::vector<std::string> communities = {};
  std::vector<std::string> large_communities = {};
  uint32_t bandwidth = 0;  ///< link-bandwidth (weighted ECMP), 0 = none
};

/// threePeers builds the model: router prefixes are the union of what is sent (sorted).
inline Model threePeers(const std::vector<Send>& sends) {
  Router r;
  r.asn = 64512;
  r.router_id = "10.0.0.100";
  const std::vector<std::pair<std::string, NeighborFamily>> peers = {
      {"10.0.0.1", NeighborFamily::V4},
      {"10.0.0.2", NeighborFamily::V4},
      {"fd00::1", NeighborFamily::V6}};
  for (size_t i = 0; i < peers.size(); ++i) {
    Neighbor n;
    n.address = peers[i].first;
    n.family = peers[i].second;
    n.remote_as = std::to_string(64513 + i);
    n.bfd_profile = i == 0 ? "fast" : "";
    r.neighbors.push_back(n);
  }
  for (const auto& s : sends) {
    const bool v6 = s.prefix.find(':') != std::string::npos;
    auto& nets = v6 ? r.prefixes_v6 : r.prefixes_v4;
    if (std::find(nets.begin(), nets.end(), s.prefix) == nets.end()) {
      nets.push_back(s.prefix);
    }
    for (auto& n : r.neighbors) {
      // Like build(): a session gets the prefixes of the family it carries.
      const bool carries =
          n.family == NeighborFamily::Dual || (n.family == NeighborFamily::V6) == v6;
      if (!carries || std::find(s.to.begin(), s.to.end(), n.address) == s.to.end()) {
        continue;
      }
      auto& out = v6 ? n.outgoing_v6 : n.outgoing_v4;
      out.append({s.prefix, s.local_pref, s.communities, s.large_communities, s.bandwidth});
    }
  }
  for (auto& n : r.neighbors) {
    for (auto* out : {&n.outgoing_v4, &n.outgoing_v6}) {
      std::sort(out->begin(), out->end(),
                [](const auto& a, const auto& b) { return a.prefix < b.prefix; });
    }
  }
  std::sort(r.prefixes_v4.begin(), r.prefixes_v4.end());
  std::sort(r.prefixes_v6.begin(), r.prefixes_v6.end());
  Model m;
  m.routers = {r};
  m.bfd_profiles = {{"fast", 150, 150, 3, std::nullopt, false, false, std::nullopt}};
  return m;
}

/// classOf returns the advertisement class with the tag; a missing one fails the test.
inline const AdvertClass& classOf(const CompactModel& c, uint32_t tag) {
  auto it = std::find_if(c.classes.begin(), c.classes.end(),
                         [tag](const AdvertClass& k) { return k.tag == tag; });
  BOOST_TEST_REQUIRE((it != c.classes.end()), "no class with tag " << tag);
  return *it;
}

}  // namespace ingot::frrgen::testing
