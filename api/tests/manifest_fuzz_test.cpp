// SPDX-License-Identifier: Apache-2.0
// Seeded random mutations of valid manifests: whatever the bytes, loading never crashes, never
// throws, stays fast, and every failure is reported as a problem with a line.
#include <chrono>
#include <random>

#include <boost/test/unit_test.hpp>

#include "api/codec.h"
#include "api/manifest.h"
#include "api/tests/fixtures.h"
#include "common/json/json.h"

namespace api = ingot::api;
namespace fx = ingot::api::testing;

namespace {

const char* const kYaml = R"(# pools
apiVersion: metallb.io/v1beta1
kind: IPAddressPool
metadata:
  name: prod
  labels: &l {team: blue, "quoted": 'x'}
spec:
  addresses:
  - 192.168.10.0/24
  - 192.168.9.1-192.168.9.5
  serviceAllocation:
    priority: 5
    namespaceSelectors:
    - matchExpressions:
      - {key: team, operator: In, values: [blue]}
---
apiVersion: metallb.io/v1beta2
kind: BGPPeer
metadata: {name: tor, labels: &m {a: b}, annotations: *m}
spec:
  myASN: 64512
  peerASN: 64513
  peerAddress: 10.0.0.1
  holdTime: 90s
  vrf: >-
    red
...
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: web, namespace: default}
  spec:
    type: LoadBalancer
    ports: [{port: 80, targetPort: http}]
)";

/// mutate applies 1-4 random edits: byte flips, truncation, random insertions.
std::string mutate(std::string s, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % s.size();
    switch (rng() % 4) {
      case 0:
        if (!s.empty()) {
          s[pos] = static_cast<char>(rng() & 0xff);
        }
        break;
      case 1:
        s.resize(pos);
        break;
      case 2: {
        const size_t n = 1 + rng() % 8;
        for (size_t i = 0; i < n; ++i) {
          s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s.size())),
                   static_cast<char>(rng() & 0xff));
        }
        break;
      }
      default: {  // structural characters are the interesting ones
        static const std::string kSpecial = "[]{}:-,&*!|>'\"#%@`?\n\t ";
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s.size())),
                 kSpecial[rng() % kSpecial.size()]);
      }
    }
  }
  return s;
}

void checkSet(const api::ManifestSet& set, const std::string& input) {
  for (const auto& p : set.problems) {
    BOOST_TEST_REQUIRE(p.pos.line > 0, "problem without a line: " << p.message << "\ninput:\n"
                                                                  << input);
    BOOST_TEST_REQUIRE(!p.message.empty());
  }
  for (const auto& o : set.objects) {
    BOOST_TEST_REQUIRE(o.pos.line > 0);
    // Whatever was accepted encodes and decodes again.
    const auto back = api::decodeAny(api::encodeAny(o.object));
    BOOST_TEST_REQUIRE(back.has_value());
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(manifest_fuzz)

BOOST_AUTO_TEST_CASE(mutated_manifests_never_crash_and_every_failure_has_a_line) {
  std::mt19937 rng(20261130);
  std::vector<std::pair<std::string, std::string>> seeds = {{kYaml, "seed.yaml"}};
  std::string list = R"({"apiVersion":"v1","kind":"List","items":[)";
  bool first = true;
  for (const auto& object : fx::allObjects()) {
    list += (first ? "" : ",\n") + api::encodeAny(object);
    first = false;
  }
  list += "]}";
  seeds.emplace_back(list, "seed.json");
  seeds.emplace_back(list, "seed-as-yaml.yaml");
  // Sanity: the seeds themselves are clean.
  for (const auto& [text, name] : seeds) {
    const auto set = api::loadManifestText(text, name);
    BOOST_TEST(set.problems.empty(), name << ": "
                                          << (set.problems.empty() ? ""
                                                                   : set.problems[0].field + " " +
                                                                         set.problems[0].message));
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(4);
  int iterations = 0;
  for (; iterations < 20000 && std::chrono::steady_clock::now() < deadline; ++iterations) {
    const auto& [text, name] = seeds[static_cast<size_t>(iterations) % seeds.size()];
    const std::string input = mutate(text, rng);
    checkSet(api::loadManifestText(input, name), input);
  }
  BOOST_TEST_MESSAGE("fuzz iterations: " << iterations);
  BOOST_TEST(iterations > 300);
}

BOOST_AUTO_TEST_SUITE_END()
