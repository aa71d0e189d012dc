// SPDX-License-Identifier: Apache-2.0
#include "kube/watch_decoder.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "kube/tests/test_util.h"

using namespace ingot::k8s;

namespace {

/// kEvents is a stream exercising what can confuse a framer: braces, brackets, quotes and
/// backslashes inside strings, multi-byte UTF-8 (2, 3 and 4 bytes) and every event type.
const std::vector<WatchEvent> kEvents = {
    {WatchEventType::Added,
     R"({"metadata":{"name":"caf)"
     "\xC3\xA9"
     R"(","resourceVersion":"10"},"spec":{"note":"} { ] [ \" \\","x":[1,{"y":[]}]}})"},
    {WatchEventType::Modified, R"({"metadata":{"name":"euro)"
                               "\xE2\x82\xAC"
                               R"(","resourceVersion":"11"},"data":{"emoji":")"
                               "\xF0\x9F\x98\x80"
                               R"("}})"},
    {WatchEventType::Bookmark, R"({"kind":"Service","metadata":{"resourceVersion":"12"}})"},
    {WatchEventType::Deleted, R"({"metadata":{"name":"x","resourceVersion":"13"},"s":"\\"})"},
    {WatchEventType::Error,
     R"({"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1"})"},
};

std::string frame(const WatchEvent& e) {
  return R"({"type":")" + std::string(watchEventTypeName(e.type)) + R"(","object":)" + e.object +
         "}";
}

std::string stream(const std::string& separator) {
  std::string s;
  for (const auto& e : kEvents) s += frame(e) + separator;
  return s;
}

/// decodeChunks feeds the chunks in order and returns every event (fails the test on error).
std::vector<WatchEvent> decodeChunks(const std::vector<std::string_view>& chunks,
                                     size_t cap = WatchDecoder::kDefaultMaxEventBytes) {
  WatchDecoder d(cap);
  std::vector<WatchEvent> out;
  for (auto chunk : chunks) {
    auto events = d.feed(chunk);
    BOOST_REQUIRE_MESSAGE(events.has_value(), ingot::k8s::testing::why(events));
    out.insert(out.end(), events->begin(), events->end());
  }
  BOOST_TEST(d.finish().has_value());
  BOOST_TEST(d.buffered() == 0u);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(watch_decoder)

BOOST_AUTO_TEST_CASE(decodes_a_stream_split_at_every_single_point) {
  const std::string s = stream("\n");
  for (size_t i = 0; i <= s.size(); ++i) {
    BOOST_TEST_CONTEXT("split at " << i) {
      std::string_view all(s);
      auto got = decodeChunks({all.substr(0, i), all.substr(i)});
      BOOST_TEST((got == kEvents));
    }
  }
}

BOOST_AUTO_TEST_CASE(decodes_a_stream_split_at_random_points) {
  const std::string s = stream("\n");
  std::mt19937 rng(20241130);
  for (int iteration = 0; iteration < 500; ++iteration) {
    std::uniform_int_distribution<size_t> count(2, 40);
    std::uniform_int_distribution<size_t> point(0, s.size());
    std::vector<size_t> cuts(count(rng));
    for (auto& c : cuts) c = point(rng);
    std::sort(cuts.begin(), cuts.end());
    std::vector<std::string_view> chunks;
    size_t prev = 0;
    for (size_t c : cuts) {
      chunks.push_back(std::string_view(s).substr(prev, c - prev));
      prev = c;
    }
    chunks.push_back(std::string_view(s).substr(prev));
    BOOST_TEST_CONTEXT("iteration " << iteration) {
      auto got = decodeChunks(chunks);
      BOOST_TEST((got == kEvents));
    }
  }
}

BOOST_AUTO_TEST_CASE(decodes_one_byte_at_a_time) {
  const std::string s = stream("\n");
  std::vector<std::string_view> chunks;
  for (size_t i = 0; i < s.size(); ++i) chunks.push_back(std::string_view(s).substr(i, 1));
  BOOST_TEST((decodeChunks(chunks) == kEvents));
}

BOOST_AUTO_TEST_CASE(accepts_any_whitespace_between_events) {
  for (std::string sep : {"", "\r\n", "\n\n", " \t "}) {
    BOOST_TEST_CONTEXT("separator of " << sep.size() << " bytes") {
      BOOST_TEST((decodeChunks({"\n  " + stream(sep)}) == kEvents));
    }
  }
}

BOOST_AUTO_TEST_CASE(returns_events_as_soon_as_they_are_complete) {
  WatchDecoder d;
  const std::string one = frame(kEvents[0]);
  auto first = d.feed(one.substr(0, one.size() - 1));
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->empty());
  BOOST_TEST(d.buffered() == one.size() - 1);
  BOOST_TEST(!d.finish().has_value());  // the stream would end mid-event
  auto second = d.feed(one.substr(one.size() - 1) + "\n" + frame(kEvents[1]).substr(0, 5));
  BOOST_REQUIRE(second.has_value());
  BOOST_REQUIRE(second->size() == 1u);
  BOOST_TEST(((*second)[0] == kEvents[0]));
  BOOST_TEST(d.buffered() == 5u);
}

BOOST_AUTO_TEST_CASE(caps_the_size_of_one_event) {
  const std::string one = frame(kEvents[0]);
  BOOST_TEST(decodeChunks({one}, one.size()).size() == 1u);  // exactly at the cap is fine

  for (size_t piece : {one.size(), size_t{7}}) {
    BOOST_TEST_CONTEXT("fed in pieces of " << piece) {
      WatchDecoder d(one.size() - 1);
      bool failed = false;
      for (size_t i = 0; i < one.size() && !failed; i += piece) {
        auto r = d.feed(std::string_view(one).substr(i, piece));
        if (!r) {
          failed = true;
          BOOST_TEST(r.error().message.find("exceeds") != std::string::npos);
        }
      }
      BOOST_TEST(failed);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_malformed_streams_and_stays_failed) {
  struct Case {
    std::string desc;
    std::string input;
    std::string want;  ///< part of the error message
  };
  const std::vector<Case> cases = {
      {"garbage between events", frame(kEvents[2]) + "\nx", "expected '{'"},
      {"invalid JSON inside an event", R"({"type":"ADDED","object":{"a":}})", "watch event"},
      {"unknown type", R"({"type":"RENAMED","object":{}})", "unknown type \"RENAMED\""},
      {"missing type", R"({"object":{}})", "missing \"type\""},
      {"type not a string", R"({"type":1,"object":{}})", "not a string"},
      {"missing object", R"({"type":"ADDED"})", "non-object \"object\""},
      {"object not an object", R"({"type":"ADDED","object":[1]})", "non-object \"object\""},
      {"invalid UTF-8 in a string", "{\"type\":\"ADDED\",\"object\":{\"a\":\"\xC3(\"}}",
       "invalid UTF-8"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      WatchDecoder d;
      auto r = d.feed(c.input);
      BOOST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error().message.find(c.want) != std::string::npos, r.error().message);
      BOOST_TEST(!d.feed(frame(kEvents[2])).has_value());  // poisoned
      BOOST_TEST(!d.finish().has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_watch_event_reads_type_and_raw_object) {
  for (const auto& e : kEvents) {
    BOOST_TEST_CONTEXT(watchEventTypeName(e.type)) {
      auto got = parseWatchEvent(frame(e));
      BOOST_REQUIRE(got.has_value());
      BOOST_TEST((*got == e));
    }
  }
  auto reordered = parseWatchEvent(R"({"object":{"a":1},"extra":[],"type":"DELETED"})");
  BOOST_REQUIRE(reordered.has_value());
  BOOST_TEST((reordered->type == WatchEventType::Deleted));
  BOOST_TEST(reordered->object == R"({"a":1})");
}

BOOST_AUTO_TEST_SUITE_END()
