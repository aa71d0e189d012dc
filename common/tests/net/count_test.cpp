// SPDX-License-Identifier: Apache-2.0
#include "common/net/count.h"

#include <boost/test/unit_test.hpp>

using ingot::net::Cidr;
using ingot::net::Count;
using ingot::net::U128;

namespace {

constexpr U128 kMax = ~U128{0};
const std::string kTwoTo128 = "340282366920938463463374607431768211456";

Count cidrCount(const std::string& text) {
  return Count::ofCidr(*Cidr::parse(text));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(count)

BOOST_AUTO_TEST_CASE(the_whole_ipv6_space_is_counted_exactly) {
  const Count all = cidrCount("::/0");
  BOOST_TEST(!all.fitsU128());
  BOOST_TEST(all.toString() == kTwoTo128);
  BOOST_TEST(all > Count(kMax));
  BOOST_TEST((all - Count(1)) == Count(kMax));
  BOOST_TEST((all - Count(1)).fitsU128());
  BOOST_TEST(cidrCount("::/1").toString() == "170141183460469231731687303715884105728");
  BOOST_TEST((cidrCount("::/1") + cidrCount("8000::/1")) == all);
  BOOST_TEST(cidrCount("0.0.0.0/0") == Count(U128{1} << 32));
  BOOST_TEST(all.toDouble() == 340282366920938463463374607431768211456.0);
}

BOOST_AUTO_TEST_CASE(arithmetic_table) {
  struct Case {
    std::string desc;
    Count a, b;
    std::string sum, difference;
  };
  const Count all = cidrCount("::/0");
  const std::vector<Case> cases = {
      {"small", Count(7), Count(5), "12", "2"},
      {"below zero clamps", Count(5), Count(7), "12", "0"},
      {"carry into the 129th bit", Count(kMax), Count(1), kTwoTo128,
       "340282366920938463463374607431768211454"},
      {"2^128 plus IPv4's 2^32", all, Count(U128{1} << 32),
       "340282366920938463463374607436063178752", "340282366920938463463374607427473244160"},
      {"2^128 + 3 and 2^128 - 1: the sum saturates, the difference borrows", all + Count(3),
       Count(kMax), "680564733841876926926749214863536422911", "4"},
      {"saturates at 2^129 - 1", all + Count(kMax), all, "680564733841876926926749214863536422911",
       "340282366920938463463374607431768211455"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      BOOST_TEST((c.a + c.b).toString() == c.sum);
      BOOST_TEST((c.a - c.b).toString() == c.difference);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
