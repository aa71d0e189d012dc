// SPDX-License-Identifier: Apache-2.0
// The agent writes exactly what `ingotctl render --node N` prints for the same objects: both
// run config::parse → decideBgp → collectAnnouncements → frrgen::build, and this test keeps the
// daemon's wiring (caches, option mapping, ordering) honest against the CLI's.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "agent/tests/daemon/fixtures.h"
#include "api/codec.h"
#include "cli/commands.h"
#include "cli/converge.h"
#include "cli/workspace.h"
#include "frr/port.h"
#include "frrgen/yaml.h"

namespace ingot::agent {
namespace {

using testing::examples;
using testing::Harness;
using testing::replaced;
using testing::TempFile;

struct Case {
  std::string desc;
  std::string yaml;
  std::string node;
  bool ignore_exclude_lb = false;
  bool announced = true;  ///< whether checkout is announced from the node (a sanity check)
};

std::vector<Case> cases() {
  const std::string base = examples();
  const std::string cluster_svc = replaced(base, "  externalTrafficPolicy: Local\n", "");
  const std::string excluded =
      replaced(base, "    kubernetes.io/hostname: node1\n",
               "    kubernetes.io/hostname: node1\n"
               "    node.kubernetes.io/exclude-from-external-load-balancers: \"\"\n");
  const std::string secret =
      replaced(base, "  bfdProfile: fast\n",
               "  bfdProfile: fast\n  passwordSecret:\n    name: tor1-password\n"
               "    namespace: metallb-system\n") +
      "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: tor1-password\n  namespace: "
      "metallb-system\ntype: kubernetes.io/basic-auth\nstringData:\n  password: s3cret\n";
  const std::string unselected =
      replaced(base, "    ingot.example/bgp-speaker: \"true\"\n    ingot.example/l2-speaker",
               "    ingot.example/l2-speaker");
  return {
      {"etp_local_with_a_local_endpoint_is_announced", base, "node1"},
      {"etp_local_without_a_local_endpoint_is_not_announced", base, "node2", false, false},
      {"etp_cluster_is_announced_from_every_peering_node", cluster_svc, "node2"},
      {"exclude_label_stops_the_announcement", excluded, "node1", false, false},
      {"ignore_exclude_lb_announces_despite_the_label", excluded, "node1", true, true},
      {"password_secret_is_passed_through_in_the_same_namespace", secret, "node1"},
      {"node_outside_the_peer_node_selector_has_no_session", unselected, "node1"},
  };
}

std::string renderWithCli(const std::string& file,
                          const Case& c,
                          const std::vector<std::string>& extra = {}) {
  std::vector<std::string> words{"--node", c.node, "-f", file};
  words.insert(words.end(), extra.begin(), extra.end());
  if (c.ignore_exclude_lb) words.push_back("--ignore-exclude-lb");
  std::ostringstream out, err;
  const int rc = cli::runRender(words, out, err);
  BOOST_REQUIRE_MESSAGE(rc == cli::kExitOk, "ingotctl render failed: " + err.str() + out.str());
  return out.str();
}

BOOST_AUTO_TEST_CASE(agent_writes_what_ingotctl_render_prints) {
  for (const Case& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      const TempFile file(c.yaml);
      const std::string expected = renderWithCli(file.path(), c);
      ReconcilerOptions o;
      o.node = c.node;
      o.announce.ignore_exclude_lb = c.ignore_exclude_lb;
      Harness h(o);
      testing::loadInto(h, file.path());
      h.queue.add(std::string(keys::kConfig));
      h.drain();
      h.clock.advance(o.debounce);
      h.drain();
      const auto creates = h.writes("create");
      std::vector<std::string> frr;
      for (const auto& w : creates) {
        if (w.body.find("\"FRRConfiguration\"") != std::string::npos) frr.push_back(w.body);
      }
      BOOST_REQUIRE_EQUAL(frr.size(), 1u);
      auto written = api::decodeJson<api::FRRConfiguration>(frr.front());
      BOOST_REQUIRE(written);
      BOOST_TEST(frrgen::toYaml(*written) == expected);
      const bool announced =
          h.metrics.render().find("service=\"shop/checkout\"") != std::string::npos;
      BOOST_TEST(announced == c.announced);
    }
  }
}

/// TextApply records the frr.conf the port's default apply hands over (the compact file).
class TextApply final : public frr::FrrPort {
 public:
  Result<frr::ApplyReport> reload(const std::string& text) override {
    texts.push_back(text);
    return frr::ApplyReport{};
  }
  std::vector<std::string> texts;
};

BOOST_AUTO_TEST_CASE(frr_mode_agent_applies_what_ingotctl_render_backend_frr_prints) {
  for (const Case& c : cases()) {
    BOOST_TEST_CONTEXT(c.desc) {
      const TempFile file(c.yaml);
      const std::string expected =
          renderWithCli(file.path(), c, {"--backend", "frr", "--format", "frr.conf"});
      // Every announced prefix is one `network P route-map ingot-adv-<tag>` line.
      const bool compact = expected.find("  network ") == std::string::npos ||
                           expected.find("route-map ingot-adv-") != std::string::npos;
      BOOST_TEST(compact, expected);
      ReconcilerOptions o;
      o.node = c.node;
      o.dialect = config::Backend::Frr;
      o.build.frrk8s_namespace = o.namespace_;  // frr mode resolves Secrets itself
      o.announce.ignore_exclude_lb = c.ignore_exclude_lb;
      TextApply frr;
      Harness h(o, &frr);
      testing::loadInto(h, file.path());
      h.queue.add(std::string(keys::kConfig));
      h.drain();
      BOOST_REQUIRE_EQUAL(frr.texts.size(), 1u);
      BOOST_TEST(frr.texts.front() == expected);
    }
  }
}

}  // namespace
}  // namespace ingot::agent
