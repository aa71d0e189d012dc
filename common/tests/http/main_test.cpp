// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_http
#include <boost/test/unit_test.hpp>
