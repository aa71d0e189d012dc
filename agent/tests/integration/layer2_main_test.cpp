// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_agent_layer2_integration_test
#include <boost/test/unit_test.hpp>
