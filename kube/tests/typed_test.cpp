// SPDX-License-Identifier: Apache-2.0
#include "kube/typed.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "common/json/scan.h"
#include "kube/tests/fake_api_client.h"
#include "kube/tests/test_util.h"

using namespace ingot::k8s;
namespace json = ingot::json;
using ingot::Error;
using ingot::ErrorCode;
using ingot::Result;
using ingot::k8s::testing::FakeApiClient;
using ingot::k8s::testing::objectJson;

namespace {

const ResourceRef kTypedThings{"example.com", "v1", "things", true};

struct TypedThing {
  std::string name;
  std::string rv;
  std::string value;
};

Result<TypedThing> decode(std::string_view j) {
  auto name = json::stringAt(j, {"metadata", "name"});
  auto rv = json::stringAt(j, {"metadata", "resourceVersion"});
  auto value = json::stringAt(j, {"spec", "value"});
  if (!name || !rv || !value) return ingot::invalidArgument("bad thing");
  return TypedThing{*name, *rv, *value};
}

std::string encode(const TypedThing& t) {
  return objectJson("ns", t.name, t.rv, t.value);
}

const Error kConflict{ErrorCode::Conflict, "the object has been modified"};

}  // namespace

BOOST_AUTO_TEST_SUITE(typed)

BOOST_AUTO_TEST_CASE(retry_on_conflict_retries_only_conflicts_up_to_the_limit) {
  struct Case {
    std::string desc;
    std::vector<Result<int>> results;
    int attempts;
    int want_calls;
    bool want_ok;
  };
  const Error other{ErrorCode::Unavailable, "down"};
  const std::vector<Case> cases = {
      {"success at once", {1}, 5, 1, true},
      {"two conflicts then success", {kConflict, kConflict, 3}, 5, 3, true},
      {"another error stops", {kConflict, other, 3}, 5, 2, false},
      {"gives up after the limit", {kConflict, kConflict, kConflict, 4}, 3, 3, false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      int calls = 0;
      auto r =
          retryOnConflict<int>(c.attempts, [&]() -> Result<int> { return c.results[calls++]; });
      BOOST_TEST(calls == c.want_calls);
      BOOST_TEST(r.has_value() == c.want_ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(modify_rereads_and_retries_on_conflict) {
  FakeApiClient api;
  api.gets = {objectJson("ns", "a", "1", "old"), objectJson("ns", "a", "2", "old")};
  api.write_results = {kConflict, objectJson("ns", "a", "3", "new")};
  TypedClient<TypedThing> things(api, kTypedThings, decode, encode);
  auto r = things.modify("ns", "a", [](TypedThing& t) {
    t.value = "new";
    return true;
  });
  BOOST_REQUIRE_MESSAGE(r.has_value(), ingot::k8s::testing::why(r));
  BOOST_TEST(r->rv == "3");
  BOOST_TEST(api.getCalls() == 2);
  const auto writes = api.writes();
  BOOST_REQUIRE(writes.size() == 2u);
  BOOST_TEST(writes[0].verb == "update");
  BOOST_TEST(*json::stringAt(writes[0].body, {"metadata", "resourceVersion"}) == "1");
  BOOST_TEST(*json::stringAt(writes[1].body, {"metadata", "resourceVersion"}) == "2");
}

BOOST_AUTO_TEST_CASE(modify_writes_status_and_skips_no_op_changes) {
  FakeApiClient api;
  api.gets = {objectJson("ns", "a", "1", "v"), objectJson("ns", "a", "1", "v")};
  TypedClient<TypedThing> things(api, kTypedThings, decode, encode);
  auto unchanged = things.modify("ns", "a", [](TypedThing&) { return false; });
  BOOST_TEST(unchanged.has_value());
  BOOST_TEST(api.writes().empty());
  auto status = things.modify(
      "ns", "a",
      [](TypedThing& t) {
        t.value = "w";
        return true;
      },
      true);
  BOOST_TEST(status.has_value());
  BOOST_REQUIRE(api.writes().size() == 1u);
  BOOST_TEST(api.writes()[0].verb == "updateStatus");
}

BOOST_AUTO_TEST_CASE(modify_passes_a_missing_object_through) {
  FakeApiClient api;  // no scripted get: NotFound
  TypedClient<TypedThing> things(api, kTypedThings, decode, encode);
  auto r = things.modify("ns", "a", [](TypedThing&) { return true; });
  BOOST_REQUIRE(!r.has_value());
  BOOST_TEST(static_cast<int>(r.error().code) == static_cast<int>(ErrorCode::NotFound));
}

BOOST_AUTO_TEST_CASE(list_all_pages_through_the_collection) {
  FakeApiClient api;
  api.lists = {ListPage{{objectJson("ns", "a", "1", "x")}, "", "c1"},
               ListPage{{objectJson("ns", "b", "2", "y")}, "9", ""}};
  TypedClient<TypedThing> things(api, kTypedThings, decode, encode);
  auto all = things.listAll("ns");
  BOOST_REQUIRE(all.has_value());
  BOOST_REQUIRE(all->size() == 2u);
  BOOST_TEST((*all)[1].name == "b");
  BOOST_TEST(api.listCalls()[0].limit == 500);
  BOOST_TEST(api.listCalls()[1].continue_token == "c1");
}

BOOST_AUTO_TEST_SUITE_END()
