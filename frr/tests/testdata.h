// SPDX-License-Identifier: Apache-2.0
// readTestdata: one file of frr/tests/testdata (under $INGOT_SOURCE_DIR when set, else
// relative to the test's working directory), failing the test when it cannot be read.
#pragma once

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

namespace ingot::frr::testing {

inline std::string readTestdata(const std::string& name) {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  const std::string dir =
      root != nullptr ? std::string(root) + "/frr/tests/testdata" : "tests/testdata";
  std::ifstream in(dir + "/" + name);
  BOOST_TEST_REQUIRE(in.good(), "cannot read " << dir << "/" << name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ingot::frr::testing
