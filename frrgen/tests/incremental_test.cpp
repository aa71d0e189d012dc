// SPDX-License-Identifier: Apache-2.0
// IncrementalBuild against frrgen::build: over random sequences of announcement changes (Services
// added, changed, withdrawn; prefixes shared by two Services; peers named twice, of the other
// family, of another node, unknown; a session key taken twice; new configurations; too many
// communities) the patched object must equal a full build after every step.
#include "frrgen/incremental.h"

#include <algorithm>
#include <map>
#include <random>

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "frrgen/tests/fixtures.h"

namespace ingot::frrgen {
namespace {

using namespace ingot::frrgen::testing;

config::ConfigSharedPtr makeConfig(int variant) {
  auto cfg = std::make_shared<config::Config>();
  auto add = [&](config::Peer p) { cfg->peers.emplace(p.name, std::move(p)); };
  add(peer("a", "10.0.0.1", 64512, 64600, {"node1"}));
  add(peer("b", "10.0.0.2", 64512, 64601, {"node1"}));
  add(peer("c", "fd00::1", 64512, 64602, {"node1"}));
  add(peer("d", "10.0.0.1", 64512, 64600, {"node1"}));  // a's session key: no neighbor of its own
  add(peer("e", "10.0.0.5", 64513, 64603, {"node1"}));  // a second router
  add(peer("f", "10.0.0.6", 64512, 64604, {"node2"}));  // another node's
  auto dual = peer("g", "10.0.0.7", 64512, 64605, {"node1"});
  dual.dual_stack_address_family = true;
  add(dual);
  if (variant % 2 == 1) {
    add(peer("h", "10.0.0.8", 64514, 64606, {"node1"}));
  }
  return cfg;
}

/// Model is the announcements by Service; flat() lists them grouped by Service, as the agent
/// hands them over (in key order, or shuffled when asked).
struct Model {
  std::map<std::string, std::vector<config::Announcement>> by_service;

  std::vector<config::Announcement> flat(std::mt19937& rng, bool shuffle) const {
    std::vector<const std::vector<config::Announcement>*> groups;
    for (const auto& [key, anns] : by_service) groups.push_back(&anns);
    if (shuffle) std::shuffle(groups.begin(), groups.end(), rng);
    std::vector<config::Announcement> out;
    for (const auto* g : groups) out.insert(out.end(), g->begin(), g->end());
    return out;
  }
};

config::Announcement randomAnnouncement(std::mt19937& rng, const std::string& service) {
  static const std::vector<std::string> kPrefixes = {
      "10.1.0.0/32", "10.1.0.1/32", "10.1.0.2/32",  "10.1.0.3/32",   "10.1.0.4/32",
      "10.1.0.5/32", "10.2.0.0/24", "fd00:1::/128", "fd00:1::1/128", "fd00:1::2/128"};
  static const std::vector<std::string> kPeers = {"a", "b", "c", "d", "e", "f", "g", "h", "zz"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  config::Announcement a;
  a.service = service;
  a.advertisement = pick(2) == 0 ? "ad1" : "ad2";
  a.prefix = cidr(kPrefixes[pick(kPrefixes.size())]);
  const size_t npeers = pick(4);
  for (size_t i = 0; i < npeers; ++i) a.peers.push_back(kPeers[pick(kPeers.size())]);
  a.local_pref = std::vector<uint32_t>{0, 0, 100, 200}[pick(4)];
  a.bandwidth = std::vector<uint32_t>{0, 0, 10, 20}[pick(4)];
  for (const auto& c : {community(64512, 1), community(64512, 2), large(1, 2, 3)}) {
    if (pick(3) == 0) a.communities.push_back(c);
  }
  std::sort(a.communities.begin(), a.communities.end());
  return a;
}

/// spoil gives the last announcement of service in flat more communities than build takes.
void spoil(std::vector<config::Announcement>& flat, const std::string& service) {
  for (auto it = flat.rbegin(); it != flat.rend(); ++it) {
    if (it->service == service) {
      it->communities.assign(64, community(1, 1));
      return;
    }
  }
}

/// checkSequence runs steps random steps; each is handed to IncrementalBuild either whole
/// (update) or as the changed Services alone (patch, with update when it declines), and the
/// object must then equal build's of every announcement.
void checkSequence(uint32_t seed, int steps, uint64_t& patched) {
  std::mt19937 rng(seed);
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  config::ConfigSharedPtr cfg = makeConfig(0);
  int variant = 0;
  Model model;
  IncrementalBuild inc;
  std::optional<api::FRRConfiguration> last;
  const uint64_t patched_before = patched;
  for (int step = 0; step < steps; ++step) {
    const int count = 1 + static_cast<int>(pick(3));
    std::vector<config::ServiceAnnouncements> changes;
    for (int c = 0; c < count; ++c) {
      const std::string service = "ns/svc-" + std::to_string(pick(12));
      const size_t n = pick(4);  // 0: withdrawn
      std::vector<config::Announcement> anns;
      for (size_t i = 0; i < n; ++i) anns.push_back(randomAnnouncement(rng, service));
      changes.push_back({service, anns});
      if (n == 0) {
        model.by_service.erase(service);
      } else {
        model.by_service[service] = std::move(anns);
      }
    }
    if (pick(15) == 0) cfg = makeConfig(++variant);  // a new configuration
    const bool by_patch = pick(2) == 0;
    std::vector<config::Announcement> flat = model.flat(rng, pick(4) == 0);
    if (!by_patch && pick(20) == 0 && !flat.empty()) {
      flat.push_back(flat.front());  // one Service in two runs
    }
    if (pick(25) == 0 && !changes.back().announcements.empty()) {  // build refuses it
      changes.back().announcements.back().communities.assign(64, community(1, 1));
      spoil(flat, changes.back().service);
    }
    BOOST_TEST_CONTEXT("seed " << seed << " step " << step << (by_patch ? " patch" : "")) {
      auto want = build(*cfg, "node1", flat, {});
      std::optional<bool> patch = by_patch ? inc.patch(cfg, "node1", changes, {}) : std::nullopt;
      patched += patch.has_value() ? 1 : 0;
      Result<bool> got = patch ? Result<bool>(*patch) : inc.update(cfg, "node1", flat, {});
      BOOST_TEST_REQUIRE(got.has_value() == want.has_value());
      if (!want) {
        BOOST_TEST(got.error().message == want.error().message);
        BOOST_TEST((inc.result() == last));  // the last good object stays
        continue;
      }
      BOOST_TEST_REQUIRE(inc.result().has_value());
      BOOST_TEST((*inc.result() == *want));
      // Encoded from the cached list texts as the codec encodes the whole object, for a create
      // (its own metadata) and for an update (the live object's).
      api::FRRConfiguration shell = *want;
      shell.spec = {};
      BOOST_TEST(inc.encode(shell, api::encodeJson<api::FRRConfiguration>) ==
                 api::encodeJson(*want));
      shell.metadata.resource_version = std::to_string(step);
      api::FRRConfiguration live = shell;
      live.spec = want->spec;
      BOOST_TEST(inc.encode(shell, api::encodeJson<api::FRRConfiguration>) ==
                 api::encodeJson(live));
      if (!*got) {
        BOOST_TEST((last && *last == *want));  // "unchanged" is never wrong
      }
      last = inc.result();
    }
  }
  BOOST_TEST(inc.rebuilds() < static_cast<uint64_t>(steps) / 2);  // mostly patched
  BOOST_TEST(inc.patches() == patched - patched_before);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(incremental_suite)

BOOST_AUTO_TEST_CASE(random_change_sequences_equal_a_full_build) {
  uint64_t patched = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    checkSequence(seed, 120, patched);
  }
  BOOST_TEST(patched > 40u * 120u / 4u);  // the changed Services alone were handed over often
}

BOOST_AUTO_TEST_CASE(a_changed_service_patches_without_a_rebuild) {
  const config::ConfigSharedPtr cfg = makeConfig(0);
  std::vector<config::Announcement> anns;
  for (int i = 0; i < 200; ++i) {
    config::Announcement a;
    a.service = "ns/svc-" + std::to_string(1000 + i);
    a.prefix = cidr("10.3." + std::to_string(i / 100) + "." + std::to_string(i % 100) + "/32");
    a.peers = {"a", "b"};
    a.local_pref = i % 2 == 0 ? 100 : 0;
    anns.push_back(a);
  }
  IncrementalBuild inc;
  BOOST_TEST_REQUIRE(inc.update(cfg, "node1", anns, {}).has_value());
  BOOST_TEST(inc.rebuilds() == 1u);
  anns[17].prefix = cidr("10.9.9.9/32");  // the Service moved
  auto changed = inc.update(cfg, "node1", anns, {});
  BOOST_TEST_REQUIRE(changed.has_value());
  BOOST_TEST(*changed);
  BOOST_TEST(inc.rebuilds() == 1u);
  BOOST_TEST((*inc.result() == *build(*cfg, "node1", anns, {})));
  const auto& allowed = inc.result()->spec.routers.at(0).neighbors.at(0).to_advertise;
  BOOST_TEST(std::count(allowed.allowed_prefixes.begin(), allowed.allowed_prefixes.end(),
                        "10.9.9.9/32") == 1);
  auto same = inc.update(cfg, "node1", anns, {});
  BOOST_TEST_REQUIRE(same.has_value());
  BOOST_TEST(!*same);
  anns.erase(anns.begin() + 3);  // withdrawn
  BOOST_TEST(*inc.update(cfg, "node1", anns, {}));
  BOOST_TEST(inc.rebuilds() == 1u);
  BOOST_TEST((*inc.result() == *build(*cfg, "node1", anns, {})));
  // Another node, options or configuration builds afresh.
  BuildOptions o;
  o.frrk8s_namespace = "frr-k8s-system";
  BOOST_TEST(*inc.update(cfg, "node1", anns, o));
  BOOST_TEST(inc.rebuilds() == 2u);
  BOOST_TEST(inc.result()->metadata.namespace_ == "frr-k8s-system");
}

// The changed Services handed over alone: a moved, a new and a withdrawn Service patch the object
// without a rebuild; another configuration, or too large a change, is declined (update's part).
BOOST_AUTO_TEST_CASE(changed_services_alone_patch_or_are_declined) {
  const config::ConfigSharedPtr cfg = makeConfig(0);
  std::map<std::string, std::vector<config::Announcement>> by_service;
  for (int i = 0; i < 300; ++i) {
    config::Announcement a;
    a.service = "ns/svc-" + std::to_string(1000 + i);
    a.prefix = cidr("10.3." + std::to_string(i / 100) + "." + std::to_string(i % 100) + "/32");
    a.peers = {"a", "b"};
    a.local_pref = i % 2 == 0 ? 100 : 0;
    by_service[a.service] = {a};
  }
  auto flat = [&] {
    std::vector<config::Announcement> out;
    for (const auto& [key, anns] : by_service) out.insert(out.end(), anns.begin(), anns.end());
    return out;
  };
  IncrementalBuild inc;
  BOOST_TEST(!inc.patch(cfg, "node1", {}, {}).has_value());  // nothing built yet
  BOOST_TEST_REQUIRE(inc.update(cfg, "node1", flat(), {}).has_value());
  std::vector<config::ServiceAnnouncements> changes;
  config::Announcement moved = by_service.at("ns/svc-1017").front();
  moved.prefix = cidr("10.9.9.9/32");
  changes.push_back({moved.service, {moved}});
  changes.push_back({"ns/svc-1003", {}});  // withdrawn
  config::Announcement fresh = moved;
  fresh.service = "ns/new";
  fresh.prefix = cidr("10.9.9.10/32");
  changes.push_back({fresh.service, {fresh}});
  for (const auto& c : changes) {
    if (c.announcements.empty()) {
      by_service.erase(c.service);
    } else {
      by_service[c.service] = c.announcements;
    }
  }
  const std::optional<bool> patched = inc.patch(cfg, "node1", changes, {});
  BOOST_TEST_REQUIRE(patched.has_value());
  BOOST_TEST(*patched);
  BOOST_TEST(inc.rebuilds() == 1u);
  BOOST_TEST((*inc.result() == *build(*cfg, "node1", flat(), {})));
  BOOST_TEST(!*inc.patch(cfg, "node1", changes, {}));  // the same again: unchanged
  // An announcement filed under another Service, another configuration, or more changes than a
  // patch is worth: declined, nothing changed.
  changes.push_back({"ns/other", {moved}});
  BOOST_TEST(!inc.patch(cfg, "node1", changes, {}).has_value());
  changes.pop_back();
  BOOST_TEST(!inc.patch(makeConfig(1), "node1", changes, {}).has_value());
  std::vector<config::ServiceAnnouncements> all;
  all.reserve(by_service.size());
  for (const auto& [key, anns] : by_service) all.push_back({key, {}});
  BOOST_TEST(!inc.patch(cfg, "node1", all, {}).has_value());
  BOOST_TEST((*inc.result() == *build(*cfg, "node1", flat(), {})));
  BOOST_TEST(inc.patches() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::frrgen
