// SPDX-License-Identifier: Apache-2.0
#include "api/convert.h"

#include <boost/test/unit_test.hpp>

#include "api/tests/fixtures.h"

namespace api = ingot::api;
namespace fx = ingot::api::testing;

BOOST_AUTO_TEST_SUITE(convert)

BOOST_AUTO_TEST_CASE(v1beta1_to_v1beta2_copies_every_shared_field) {
  const auto old = fx::bgpPeerV1beta1();
  const api::BGPPeer peer = api::toV1beta2(old);
  BOOST_TEST((peer.metadata == old.metadata));
  BOOST_TEST(peer.spec.my_asn == old.spec.my_asn);
  BOOST_TEST(peer.spec.peer_asn == old.spec.peer_asn);
  BOOST_TEST(peer.spec.peer_address == old.spec.peer_address);
  BOOST_TEST(peer.spec.source_address == old.spec.source_address);
  BOOST_TEST((peer.spec.peer_port == old.spec.peer_port));
  BOOST_TEST((peer.spec.hold_time == old.spec.hold_time));
  BOOST_TEST((peer.spec.keepalive_time == old.spec.keepalive_time));
  BOOST_TEST(peer.spec.router_id == old.spec.router_id);
  BOOST_TEST((peer.spec.node_selectors == old.spec.node_selectors));
  BOOST_TEST(peer.spec.password == old.spec.password);
  BOOST_TEST(peer.spec.bfd_profile == old.spec.bfd_profile);
  BOOST_TEST(peer.spec.ebgp_multi_hop == old.spec.ebgp_multi_hop);
  // v1beta2-only fields keep their defaults.
  BOOST_TEST(peer.spec.dynamic_asn.empty());
  BOOST_TEST(!peer.spec.password_secret.has_value());
  BOOST_TEST(!peer.spec.connect_time.has_value());
}

BOOST_AUTO_TEST_CASE(conversion_round_trips_in_both_directions) {
  const auto old = fx::bgpPeerV1beta1();
  BOOST_TEST((api::toV1beta1(api::toV1beta2(old)) == old));

  api::BGPPeer peer = fx::bgpPeer();
  const api::BGPPeerV1beta1 down = api::toV1beta1(peer);
  BOOST_TEST(down.spec.peer_address == peer.spec.peer_address);
  // Fields v1beta1 cannot hold are dropped; the shared ones come back unchanged.
  api::BGPPeer shared = peer;
  shared.spec.dynamic_asn.clear();
  shared.spec.local_asn.reset();
  shared.spec.interface.clear();
  shared.spec.connect_time.reset();
  shared.spec.password_secret.reset();
  shared.spec.enable_graceful_restart = false;
  shared.spec.vrf.clear();
  shared.spec.disable_mp = false;
  shared.spec.dual_stack_address_family = false;
  BOOST_TEST((api::toV1beta2(down) == shared));
}

BOOST_AUTO_TEST_SUITE_END()
