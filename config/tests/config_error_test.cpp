// SPDX-License-Identifier: Apache-2.0
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "config/config.h"

namespace ingot::config {

BOOST_AUTO_TEST_SUITE(config_error)

BOOST_AUTO_TEST_CASE(format_config_error_names_object_and_field_and_leaves_out_empty_parts) {
  struct Case {
    std::string desc;
    ConfigError error;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"namespaced object and field",
       {"IPAddressPool", "metallb-system", "b", "spec.addresses[0]", "overlaps", false},
       "IPAddressPool metallb-system/b spec.addresses[0]: overlaps"},
      {"cluster object without namespace",
       {"Node", "", "n1", "", "no labels", false},
       "Node n1: no labels"},
      {"kind and field, no name",
       {"BGPPeer", "", "", "spec.myASN", "differs", false},
       "BGPPeer spec.myASN: differs"},
      {"field only", {"", "", "", "spec.x", "bad", false}, "spec.x: bad"},
      {"no object at all is the message alone",
       {"", "", "", "", "global problem", false},
       "global problem"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST(formatConfigError(c.error) == c.expected);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace ingot::config
