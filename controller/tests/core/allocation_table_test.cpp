// SPDX-License-Identifier: Apache-2.0
#include "controller/core/allocation_table.h"

#include <map>
#include <random>
#include <set>

#include <boost/test/unit_test.hpp>

#include "controller/tests/core/test_util.h"

using namespace ingot;
using namespace ingot::controller;
using namespace ingot::controller::testing;

namespace {

std::set<std::string> usersOf(const AllocationTable& t, const net::IpAddress& addr) {
  std::set<std::string> out;
  t.forEachUser(addr, [&](AllocationTable::Id id) { out.emplace(t.key(id)); });
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(allocation_table)

BOOST_AUTO_TEST_CASE(services_share_addresses_ports_and_keys_until_erased) {
  struct Step {
    std::string desc;
    bool insert;
    std::string key;
    std::vector<std::string> ips;
    std::string sharing;
    std::set<std::string> want_users_of_shared;  ///< users of 10.0.0.1 afterwards
    std::size_t want_size;
  };
  const std::vector<Step> steps = {
      {"a takes 10.0.0.1 and fc00::1", true, "ns/a", {"10.0.0.1", "fc00::1"}, "k", {"ns/a"}, 1},
      {"b shares 10.0.0.1", true, "ns/b", {"10.0.0.1"}, "k", {"ns/a", "ns/b"}, 2},
      {"c takes 10.0.0.2", true, "ns/c", {"10.0.0.2"}, "", {"ns/a", "ns/b"}, 3},
      {"a leaves: b still holds 10.0.0.1", false, "ns/a", {}, "", {"ns/b"}, 2},
      {"a comes back on the IPv4 address only",
       true,
       "ns/a",
       {"10.0.0.1"},
       "k",
       {"ns/a", "ns/b"},
       3},
      {"b leaves", false, "ns/b", {}, "", {"ns/a"}, 2},
      {"a leaves", false, "ns/a", {}, "", {}, 1},
  };
  AllocationTable t;
  const std::vector<Port> ports = {{"TCP", 80}};
  for (const auto& s : steps) {
    BOOST_TEST_CONTEXT(s.desc) {
      if (s.insert) {
        std::vector<net::IpAddress> ips;
        for (const auto& text : s.ips) {
          ips.push_back(ip(text));
        }
        const auto id = t.insert(s.key, 3, ips, ports, AllocationKey{s.sharing, ""});
        BOOST_TEST(t.key(id) == s.key);
        BOOST_TEST((t.ips(id) == ips));
        BOOST_TEST(t.pool(id) == 3U);
        BOOST_TEST(t.sharingIdOf(AllocationKey{s.sharing, ""}).has_value());
        BOOST_TEST((t.ports(id) == ports));
        BOOST_TEST(t.sharing(id).sharing == s.sharing);
      } else {
        t.erase(*t.find(s.key));
        BOOST_TEST(!t.find(s.key).has_value());
      }
      BOOST_TEST((usersOf(t, ip("10.0.0.1")) == s.want_users_of_shared));
      BOOST_TEST(t.size() == s.want_size);
      // The same value in the other family is another address.
      BOOST_TEST(usersOf(t, net::IpAddress::v6(ip("10.0.0.1").value())).empty());
    }
  }
  BOOST_TEST(!t.used(ip("fc00::1")));
  BOOST_TEST(t.used(ip("10.0.0.2")));
  BOOST_TEST(!t.sharingIdOf(AllocationKey{"k", ""}).has_value());
}

// A random sequence of inserts and erases, checked after every step against plain std::map
// models: exercises probe chains, backward-shift deletion, growth and id and key reuse.
BOOST_AUTO_TEST_CASE(random_inserts_and_erases_match_a_reference_model) {
  std::mt19937 rng(7);
  AllocationTable t;
  std::map<std::string, std::vector<net::IpAddress>> model;
  const std::string long_tail(200, 'x');  // long keys, so that compaction happens
  for (int step = 0; step < 20000; ++step) {
    const std::string key =
        "ns/s" + std::to_string(rng() % 1500) + (step % 3 == 0 ? long_tail : "");
    if (auto it = model.find(key); it != model.end()) {
      const auto id = t.find(key);
      BOOST_REQUIRE(id.has_value());
      t.erase(*id);
      model.erase(it);
      continue;
    }
    // Few distinct addresses: many services share each one.
    std::vector<net::IpAddress> ips = {net::IpAddress::v4(rng() % 300)};
    if (rng() % 4 == 0) {
      ips.push_back(net::IpAddress::v6(rng() % 300));
    }
    t.insert(key, 0, ips, {{"TCP", static_cast<int32_t>(rng() % 3)}}, AllocationKey{"k", ""});
    model.emplace(key, ips);
    if (step % 997 == 0) {
      BOOST_TEST_CONTEXT("step " << step) {
        BOOST_TEST(t.size() == model.size());
        std::map<net::IpAddress, std::set<std::string>> users;
        for (const auto& [k, held] : model) {
          BOOST_TEST((t.find(k) && t.ips(*t.find(k)) == held), k);
          for (const auto& a : held) {
            users[a].insert(k);
          }
        }
        for (uint32_t v = 0; v < 300; ++v) {
          for (const auto& a : {net::IpAddress::v4(v), net::IpAddress::v6(v)}) {
            BOOST_TEST((usersOf(t, a) == users[a]), a.toString());
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
