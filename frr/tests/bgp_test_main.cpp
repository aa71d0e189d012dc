// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_frr
#include <boost/test/unit_test.hpp>
