// SPDX-License-Identifier: Apache-2.0
#include "common/version/version.h"

#include <boost/test/unit_test.hpp>

#include "common/daemon/flags.h"
#include "common/daemon/prometheus.h"

using namespace ingot;

BOOST_AUTO_TEST_SUITE(version_info)

BOOST_AUTO_TEST_CASE(version_text_names_the_program_version_and_revision) {
  BOOST_TEST(version::versionText("ingot-agent", {"1.2.3", "0123abc-dirty"}) ==
             "ingot-agent version 1.2.3 (revision 0123abc-dirty)\n");
}

BOOST_AUTO_TEST_CASE(the_build_has_a_version_and_a_revision) {
  const auto info = version::buildInfo();
  BOOST_TEST(!info.version.empty());
  // A hexadecimal commit (possibly "-dirty"), or "unknown" when git was not available.
  const std::string revision(info.revision);
  const std::string hash = revision.substr(0, revision.find('-'));
  const bool hex =
      hash.size() >= 7 && hash.find_first_not_of("0123456789abcdef") == std::string::npos;
  BOOST_TEST((hex || revision == "unknown"), revision);
}

BOOST_AUTO_TEST_CASE(build_info_metric_is_one_labelled_by_version_and_revision) {
  const auto info = version::buildInfo();
  const std::string expected =
      "# HELP ingot_build_info Always 1; the labels name the version and git "
      "revision this binary was built from.\n# TYPE ingot_build_info gauge\n"
      "ingot_build_info{version=\"" +
      std::string(info.version) + "\",revision=\"" + std::string(info.revision) + "\"} 1\n";
  BOOST_TEST(daemon::renderPrometheus({daemon::buildInfoFamily()}) == expected);
}

BOOST_AUTO_TEST_CASE(every_daemon_accepts_version) {
  daemon::FlagSet set;
  daemon::CommonFlags flags;
  daemon::addCommonFlags(set, flags, "health");
  BOOST_REQUIRE(
      set.parse({"--version"}, [](std::string_view) { return std::nullopt; }).has_value());
  BOOST_TEST(flags.version);
  BOOST_TEST(set.usage().find("--version\n") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
