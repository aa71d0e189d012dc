// SPDX-License-Identifier: Apache-2.0
#include "common/daemon/prometheus.h"

#include <boost/test/unit_test.hpp>

using namespace ingot::daemon;

BOOST_AUTO_TEST_SUITE(prometheus)

BOOST_AUTO_TEST_CASE(families_render_in_prometheus_text_format) {
  struct Case {
    std::string desc;
    std::vector<MetricFamily> families;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"unlabelled counter",
       {{"a_total", "Things.", MetricType::Counter, {{{}, 3}}}},
       "# HELP a_total Things.\n# TYPE a_total counter\na_total 3\n"},
      {"labelled gauge with escaping",
       {{"g",
         "Line1\nback\\slash",
         MetricType::Gauge,
         {{{{"pool", "a\"b"}}, 1.5}, {{{"pool", "c\\d"}, {"x", "y\nz"}}, 2}}}},
       "# HELP g Line1\\nback\\\\slash\n# TYPE g gauge\ng{pool=\"a\\\"b\"} 1.5\n"
       "g{pool=\"c\\\\d\",x=\"y\\nz\"} 2\n"},
      {"huge integers keep all digits below 2^53 and use exponent above",
       {{"h", "H.", MetricType::Gauge, {{{}, 4294967296.0}, {{}, 1.8446744073709552e19}}}},
       "# HELP h H.\n# TYPE h gauge\nh 4294967296\nh 1.8446744073709552e+19\n"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(renderPrometheus(c.families) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
