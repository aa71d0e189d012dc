// SPDX-License-Identifier: Apache-2.0
// OutgoingList: shared between neighbors that advertise the same list, copied on the first write;
// and merge's conversion sharing it exactly when the lists must be equal.
#include <boost/test/unit_test.hpp>

#include "frrgen/merge.h"
#include "frrgen/model.h"
#include "frrgen/tests/fixtures.h"

namespace ingot::frrgen {
namespace {

using testing::mustMerge;

// twoNeighbors: router 64512 announcing two v4 prefixes and one v6 prefix to neighbors .1 and .2
// (IPv4), each allowed both v4 prefixes, 10.1.0.1/32 with community 64512:1.
api::FRRConfiguration twoNeighbors() {
  api::FRRConfiguration c;
  c.metadata.name = "c1";
  c.metadata.namespace_ = "metallb-system";
  api::FrrRouter r;
  r.asn = 64512;
  r.prefixes = {"10.1.0.1/32", "10.1.0.2/32", "fd01::1/128"};
  for (const std::string address : {"10.0.0.1", "10.0.0.2"}) {
    api::FrrNeighbor n;
    n.address = address;
    n.asn = 64513;
    n.to_advertise.allowed_prefixes = {"10.1.0.1/32", "10.1.0.2/32"};
    n.to_advertise.with_community = {{"64512:1", {"10.1.0.1/32"}}};
    r.neighbors.push_back(n);
  }
  c.spec.routers = {r};
  return c;
}

const OutgoingList& sent(const Model& m, size_t neighbor) {
  return m.routers.at(0).neighbors.at(neighbor).outgoing_v4;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(outgoing_list_suite)

BOOST_AUTO_TEST_CASE(a_copy_shares_until_either_side_is_written) {
  OutgoingList a{{"10.1.0.1/32", 0, {}, {}}, {"10.1.0.2/32", 0, {}, {}}};
  OutgoingList b = a;
  BOOST_TEST(a.sameStorage(b));
  b[1].local_pref = 200;
  BOOST_TEST(!a.sameStorage(b));
  BOOST_TEST(a[1].local_pref == 0u);
  BOOST_TEST(b[1].local_pref == 200u);
  OutgoingList c = a;
  c.append({"10.1.0.3/32", 0, {}, {}});
  BOOST_TEST(a.size() == 2u);
  BOOST_TEST(c.size() == 3u);
  OutgoingList d = a;
  d.insert(d.begin(), {"10.0.0.0/32", 0, {}, {}});
  BOOST_TEST(a[0].prefix == "10.1.0.1/32");
  BOOST_TEST(d[0].prefix == "10.0.0.0/32");
  OutgoingList e = a;
  e.clear();
  BOOST_TEST(e.empty());
  BOOST_TEST(a.size() == 2u);
}

BOOST_AUTO_TEST_CASE(lists_compare_by_content_whatever_their_storage) {
  const OutgoingList a{{"10.1.0.1/32", 0, {"64512:1"}, {}}};
  const OutgoingList b{{"10.1.0.1/32", 0, {"64512:1"}, {}}};
  const OutgoingList c{{"10.1.0.1/32", 0, {"64512:2"}, {}}};
  BOOST_TEST(!a.sameStorage(b));
  BOOST_TEST((a == b));
  BOOST_TEST(!(a == c));
  BOOST_TEST((OutgoingList{} == OutgoingList(std::vector<OutgoingPrefix>{})));
}

BOOST_AUTO_TEST_CASE(neighbors_advertising_the_same_list_share_it) {
  const Model m = mustMerge({twoNeighbors()});
  BOOST_TEST(sent(m, 0).sameStorage(sent(m, 1)));
  BOOST_TEST_REQUIRE(sent(m, 1).size() == 2u);
  BOOST_TEST(sent(m, 1)[0].communities == (std::vector<std::string>{"64512:1"}));
}

BOOST_AUTO_TEST_CASE(a_different_advertisement_or_family_gets_its_own_list) {
  auto other_community = twoNeighbors();
  other_community.spec.routers[0].neighbors[1].to_advertise.with_community[0].community = "64512:2";
  const Model a = mustMerge({other_community});
  BOOST_TEST(!sent(a, 0).sameStorage(sent(a, 1)));
  BOOST_TEST(sent(a, 1)[0].communities == (std::vector<std::string>{"64512:2"}));
  BOOST_TEST(sent(a, 0)[0].communities == (std::vector<std::string>{"64512:1"}));

  auto dual = twoNeighbors();
  dual.spec.routers[0].neighbors[1].dual_stack_address_family = true;
  dual.spec.routers[0].neighbors[1].to_advertise.allowed_mode = "all";
  dual.spec.routers[0].neighbors[0].to_advertise.allowed_mode = "all";
  const Model b = mustMerge({dual});
  BOOST_TEST(sent(b, 0).size() == 2u);
  BOOST_TEST(b.routers[0].neighbors[0].outgoing_v6.empty());
  BOOST_TEST(b.routers[0].neighbors[1].outgoing_v6.size() == 1u);
}

BOOST_AUTO_TEST_CASE(merging_into_a_shared_list_leaves_the_other_neighbor_alone) {
  auto second = twoNeighbors();
  second.metadata.name = "c2";
  auto& n = second.spec.routers[0].neighbors;
  n.erase(n.begin() + 1);  // only 10.0.0.1, with a local preference
  n[0].to_advertise.with_community.clear();
  n[0].to_advertise.with_local_pref = {{150, {"10.1.0.2/32"}}};
  const Model m = mustMerge({twoNeighbors(), second});
  BOOST_TEST(sent(m, 0)[1].local_pref == 150u);
  BOOST_TEST(sent(m, 1)[1].local_pref == 0u);
  BOOST_TEST(sent(m, 0)[0].communities == (std::vector<std::string>{"64512:1"}));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
