// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the ingotctl command tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "cli/explain.h"
#include "common/json/json.h"

namespace ingot::cli::testing {

/// TempDir is a directory removed when the test ends.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ingotctl-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string write(const std::string& name, const std::string& text) const {
    const std::filesystem::path p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

/// sourceDir is the repository root (CTest sets INGOT_SOURCE_DIR).
inline std::string sourceDir() {
  const char* dir = std::getenv("INGOT_SOURCE_DIR");
  return dir != nullptr ? dir : ".";
}

inline std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// checkGolden compares got with cli/tests/testdata/NAME, or rewrites the file when
/// INGOT_UPDATE_GOLDEN=1.
inline void checkGolden(const std::string& name, const std::string& got) {
  const std::string path = sourceDir() + "/cli/tests/testdata/" + name;
  if (const char* update = std::getenv("INGOT_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << got;
    return;
  }
  BOOST_TEST(got == readFile(path), "golden " << path << " differs; got:\n" << got);
}

/// Run is one command's exit code and output.
struct Run {
  int code;
  std::string out;
  std::string err;
};

/// run calls a runX command function in-process.
template <typename Command>
Run run(Command command, const std::vector<std::string>& words) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = command(words, out, err);
  return {code, out.str(), err.str()};
}

/// explainExamples runs `ingotctl explain` with JSON output on examples/, extra first.
inline ingot::json::Value explainExamples(const std::vector<std::string>& extra) {
  std::vector<std::string> words = extra;
  words.insert(words.end(), {"--output", "json", "-f", sourceDir() + "/examples"});
  const Run r = run(runExplain, words);
  BOOST_TEST_REQUIRE(r.code == 0, r.out + r.err);
  auto doc = ingot::json::parse(r.out);
  BOOST_TEST_REQUIRE(doc.has_value());
  return *doc;
}

/// jsonNode returns the node of that name in explain's JSON.
inline const ingot::json::Value& jsonNode(const ingot::json::Value& doc, const std::string& name) {
  for (const auto& n : doc.find("nodes")->items()) {
    if (n.find("name")->text() == name) {
      return n;
    }
  }
  BOOST_FAIL("node " << name << " missing");
  return doc;
}

}  // namespace ingot::cli::testing
