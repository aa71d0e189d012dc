// SPDX-License-Identifier: Apache-2.0
// Backend-specific rules of MetalLB's config parser: what the native BGP speaker cannot do, and the
// session uniqueness FRR needs on every node.
#include "config/internal.h"

namespace ingot::config::detail {
namespace {

/// NativeRule is one BGPPeer field the native backend does not implement.
struct NativeRule {
  bool (*set)(const api::BGPPeerSpec&);
  const char* field;
  const char* what;  ///< MetalLB's name for it in "peer %s has <what> set on native bgp mode"
};

const std::vector<NativeRule>& nativeRules() {
  static const std::vector<NativeRule> kRules = {
      {[](const api::BGPPeerSpec& p) { return !p.bfd_profile.empty(); }, "spec.bfdProfile",
       "bfd-profile"},
      {[](const api::BGPPeerSpec& p) { return p.keepalive_time && p.keepalive_time->nanoseconds; },
       "spec.keepaliveTime", "keepalive-time"},
      {[](const api::BGPPeerSpec& p) { return !p.vrf.empty(); }, "spec.vrf", "vrf"},
      {[](const api::BGPPeerSpec& p) { return p.connect_time.has_value(); }, "spec.connectTime",
       "connect time"},
      {[](const api::BGPPeerSpec& p) { return p.enable_graceful_restart; },
       "spec.enableGracefulRestart", "EnableGracefulRestart flag"},
      {[](const api::BGPPeerSpec& p) { return p.disable_mp; }, "spec.disableMP", "disable MP flag"},
      {[](const api::BGPPeerSpec& p) { return p.dual_stack_address_family; },
       "spec.dualStackAddressFamily", "dualStackAddressFamily"},
      {[](const api::BGPPeerSpec& p) { return !p.dynamic_asn.empty(); }, "spec.dynamicASN",
       "dynamicASN"},
      {[](const api::BGPPeerSpec& p) { return !p.interface.empty(); }, "spec.interface",
       "interface"},
      {[](const api::BGPPeerSpec& p) { return p.local_asn.has_value(); }, "spec.localASN",
       "localASN"},
  };
  return kRules;
}

void checkNativePeers(State& s) {
  for (const auto* cr : sortedByName(s.in.peers)) {
    ObjectErrors errs(s.errors, "BGPPeer", cr->metadata);
    const std::string id =
        cr->spec.peer_address.empty() ? cr->metadata.name : cr->spec.peer_address;
    for (const auto& rule : nativeRules()) {
      if (rule.set(cr->spec)) {
        errs.fail(rule.field, "peer " + id + " has " + rule.what + " set on native bgp mode");
      }
    }
  }
  for (const auto* cr : sortedByName(s.in.bfd_profiles)) {
    ObjectErrors(s.errors, "BFDProfile", cr->metadata).fail("spec", "bfd profiles section set");
  }
}

/// checkNativeIpv6Pools rejects IPv6 addresses in any pool some BGPAdvertisement selects: the
/// native speaker only announces IPv4.
void checkNativeIpv6Pools(State& s) {
  std::set<std::string> selected;
  for (const auto& ad : s.in.bgp_advertisements) {
    const auto pools =
        resolvePools(ad.spec.ip_address_pools, ad.spec.ip_address_pool_selectors, s.cfg.pools);
    selected.insert(pools.begin(), pools.end());
  }
  for (const auto& name : selected) {
    const Pool& pool = s.cfg.pools.at(name);
    for (size_t i = 0; i < pool.entries.size(); ++i) {
      const auto& entry = pool.entries[i];
      if (entry.empty() || entry.front().family() != net::Family::V6) {
        continue;
      }
      ObjectErrors(s.errors, "IPAddressPool", metaOf(s.in.pools, name))
          .fail(indexed("spec.addresses", i), "pool " + goQuote(name) + " has ipv6 CIDR " +
                                                  entry.front().toString() +
                                                  ", native bgp mode does not support ipv6");
      break;
    }
  }
}

std::string routerIdText(const Peer& p) {
  return p.router_id ? p.router_id->toString() : "";
}

/// checkFrrPair applies FRR's one-router-per-node rules to two peers that meet on some node; the
/// error goes to b, the later one by name.
void checkFrrPair(const Peer& a, const Peer& b, State& s) {
  ObjectErrors errs(s.errors, "BGPPeer", metaOf(s.in.peers, b.name));
  if (a.router_id != b.router_id) {
    errs.fail("spec.routerID", "peer " + b.name + " has RouterID " + goQuote(routerIdText(b)) +
                                   " different from " + goQuote(routerIdText(a)) + " of peer " +
                                   a.name + ", in FRR mode all RouterID must be equal");
  }
  if (peerIdentity(a) == peerIdentity(b)) {
    const std::string id = b.address ? b.address->toString() : b.interface;
    errs.fail(b.address ? "spec.peerAddress" : "spec.interface",
              "peer " + id +
                  " already exists, FRR mode doesn't support duplicate BGPPeers "
                  "selecting the same node (BGPPeer " +
                  a.name + ")");
  }
  if (a.my_asn != b.my_asn && a.vrf == b.vrf) {
    errs.fail("spec.myASN", "peer " + b.name + " has myAsn different from " + a.name +
                                ", in FRR mode all myAsn must be equal for the same VRF");
  }
}

void checkFrrPeers(State& s) {
  std::vector<const Peer*> peers;
  for (const auto& [name, peer] : s.cfg.peers) {
    peers.push_back(&peer);
  }
  // Without nodes nothing tells the sessions apart, so every pair may meet.
  const bool no_nodes = s.in.nodes.empty();
  for (size_t j = 1; j < peers.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (no_nodes || intersects(peers[i]->nodes, peers[j]->nodes)) {
        checkFrrPair(*peers[i], *peers[j], s);
      }
    }
  }
}

}  // namespace

void checkBackend(State& s) {
  if (s.options.backend == Backend::Native) {
    checkNativePeers(s);
    checkNativeIpv6Pools(s);
  } else {
    checkFrrPeers(s);
  }
}

}  // namespace ingot::config::detail
