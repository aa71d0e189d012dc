// SPDX-License-Identifier: Apache-2.0
// 10,000 seeded random elections compared with an independent oracle written in Go
// (agent/tests/core/oracle), which uses Go's own net.IP.String() and crypto/sha256. The
// addresses favour the spellings where Go's text differs from inet_ntop's.
#define BOOST_TEST_MODULE ingot_election_oracle
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/core/election.h"
#include "agent/tests/core/election_fixtures.h"

namespace agent = ingot::agent;
using namespace ingot::agent::testing;

namespace {

constexpr int kCases = 10000;
constexpr uint32_t kSeed = 11;

struct OracleCase {
  std::array<uint8_t, 16> bytes;
  std::string spelled;  // an uncompressed spelling of the same address, random letter case
  std::vector<std::string> nodes;
};

// randomGroups draws 8 groups where zero runs, ties between runs and IPv4 forms are common.
std::array<uint16_t, 8> randomGroups(std::mt19937& rng) {
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<uint32_t> any(0, 0xffffffffU);
  std::array<uint16_t, 8> g{};
  const int k = kind(rng);
  if (k <= 2 || k == 3) {  // IPv4-mapped (k <= 2) or IPv4-compatible (k == 3)
    const uint32_t v4 = any(rng);
    g[5] = k <= 2 ? 0xffff : 0;
    g[6] = static_cast<uint16_t>(v4 >> 16);
    g[7] = static_cast<uint16_t>(v4);
    return g;
  }
  std::bernoulli_distribution zero(0.45);
  std::uniform_int_distribution<int> width(1, 16);
  for (auto& x : g) {
    x = zero(rng) ? 0 : static_cast<uint16_t>(any(rng) & ((1U << width(rng)) - 1U));
  }
  return g;
}

std::string spell(const std::array<uint16_t, 8>& g, std::mt19937& rng) {
  std::bernoulli_distribution upper(0.3);
  std::string out;
  for (size_t i = 0; i < g.size(); ++i) {
    char buf[8];
    std::snprintf(buf, sizeof buf, upper(rng) ? "%X" : "%x", g[i]);
    out += (i == 0 ? "" : ":") + std::string(buf);
  }
  return out;
}

std::vector<std::string> randomNodes(std::mt19937& rng) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789.-";
  std::uniform_int_distribution<int> count(1, 12);
  std::uniform_int_distribution<int> len(1, 40);
  std::uniform_int_distribution<size_t> ch(0, sizeof kAlphabet - 2);
  std::set<std::string> names;
  const int n = count(rng);
  while (static_cast<int>(names.size()) < n) {
    std::string s;
    for (int i = len(rng); i > 0; --i) {
      s += kAlphabet[ch(rng)];
    }
    names.insert(s);
  }
  std::vector<std::string> out(names.begin(), names.end());
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

std::vector<OracleCase> randomCases() {
  std::mt19937 rng(kSeed);
  std::vector<OracleCase> cases;
  for (int i = 0; i < kCases; ++i) {
    OracleCase c;
    const auto g = randomGroups(rng);
    for (size_t j = 0; j < g.size(); ++j) {
      c.bytes[2 * j] = static_cast<uint8_t>(g[j] >> 8);
      c.bytes[2 * j + 1] = static_cast<uint8_t>(g[j]);
    }
    c.spelled = spell(g, rng);
    c.nodes = randomNodes(rng);
    cases.push_back(std::move(c));
  }
  return cases;
}

// runOracle feeds the cases to the Go program and returns its output lines, split in words.
std::vector<std::vector<std::string>> runOracle(const std::vector<OracleCase>& cases) {
  const char* oracle = std::getenv("INGOT_L2_ORACLE");
  BOOST_TEST_REQUIRE(oracle != nullptr, "INGOT_L2_ORACLE is not set (CTest sets it)");
  const auto dir =
      std::filesystem::temp_directory_path() / ("ingot-l2oracle-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto input = dir / "cases.txt";
  {
    std::ofstream out(input);
    for (const auto& c : cases) {
      for (uint8_t b : c.bytes) {
        char buf[3];
        std::snprintf(buf, sizeof buf, "%02x", b);
        out << buf;
      }
      for (const auto& n : c.nodes) {
        out << ' ' << n;
      }
      out << '\n';
    }
  }
  const std::string cmd = std::string(oracle) + " < " + input.string();
  FILE* p = ::popen(cmd.c_str(), "r");
  BOOST_TEST_REQUIRE(p != nullptr);
  std::string text;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) {
    text.append(buf, n);
  }
  const int status = ::pclose(p);
  std::filesystem::remove_all(dir);
  BOOST_TEST_REQUIRE(status == 0, "oracle failed: " << cmd);
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    lines.emplace_back();
    for (std::string w; words >> w;) {
      lines.back().push_back(w);
    }
  }
  return lines;
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_elections_match_the_go_oracle) {
  const auto cases = randomCases();
  const auto lines = runOracle(cases);
  BOOST_TEST_REQUIRE(lines.size() == cases.size());
  agent::L2Hasher hasher;
  int compared = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    BOOST_TEST_CONTEXT("case " << i << ": " << c.spelled) {
      BOOST_TEST_REQUIRE(lines[i].size() == c.nodes.size() + 1);
      const std::string go_ip = lines[i][0];
      BOOST_TEST(agent::goIpString(c.spelled).value() == go_ip);
      // The whole agent path: the Service's ingress IP as written, parsed, formatted, elected.
      const auto e = worldOf(c.nodes, c.spelled).elect(hasher);
      const std::vector<std::string> want(lines[i].begin() + 1, lines[i].end());
      BOOST_TEST(e.candidates == want, boost::test_tools::per_element());
      ++compared;
    }
  }
  BOOST_TEST(compared == kCases);
}
