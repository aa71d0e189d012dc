// SPDX-License-Identifier: Apache-2.0
#include "frrgen/tests/golden.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

namespace ingot::frrgen::testing {

namespace {

std::string firstDifference(const std::string& want, const std::string& got) {
  std::istringstream w(want);
  std::istringstream g(got);
  std::string wl;
  std::string gl;
  for (int line = 1;; ++line) {
    const bool wok = static_cast<bool>(std::getline(w, wl));
    const bool gok = static_cast<bool>(std::getline(g, gl));
    if (!wok && !gok) return "contents differ only in the final newline";
    if (!wok || !gok || wl != gl) {
      return "line " + std::to_string(line) + ": golden \"" + (wok ? wl : "<end>") +
             "\" vs actual \"" + (gok ? gl : "<end>") + "\"";
    }
  }
}

}  // namespace

std::string testdataDir() {
  const char* root = std::getenv("INGOT_SOURCE_DIR");
  return root != nullptr ? std::string(root) + "/frrgen/tests/testdata" : "tests/testdata";
}

void checkGolden(const std::string& suite, const std::string& name, const std::string& actual) {
  const std::string path = testdataDir() + "/" + suite + "." + name + ".golden";
  const char* update = std::getenv("INGOT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << actual;
    BOOST_TEST(out.good(), "cannot write " << path);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    BOOST_ERROR("missing golden file " << path << " (run with INGOT_UPDATE_GOLDEN=1 to create it)");
    return;
  }
  std::stringstream buf;
  buf << in.rdbuf();
  if (buf.str() != actual) {
    BOOST_ERROR(path << " differs: " << firstDifference(buf.str(), actual)
                     << " (INGOT_UPDATE_GOLDEN=1 rewrites it)");
  }
}

}  // namespace ingot::frrgen::testing
