// SPDX-License-Identifier: Apache-2.0
// Seeded mutation fuzzing of the packet, msgpack and stream decoders. Fixed seeds keep CI
// deterministic; each suite runs a bounded number of iterations (well under a second).
#include <random>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/memberlist/core/messages.h"
#include "agent/memberlist/core/msgpack.h"
#include "agent/memberlist/core/security.h"
#include "agent/memberlist/core/wire.h"

namespace ml = ingot::agent::memberlist;

namespace {

constexpr int kIterations = 20000;

// mutate applies one random edit: bit flip, byte set, truncation, insertion or duplication.
ml::Bytes mutate(ml::Bytes b, std::mt19937& rng) {
  std::uniform_int_distribution<int> op(0, 4);
  auto at = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n)(rng); };
  const int edits = 1 + static_cast<int>(at(3));
  for (int e = 0; e < edits && !b.empty(); ++e) {
    switch (op(rng)) {
      case 0:
        b[at(b.size() - 1)] ^= static_cast<uint8_t>(1U << at(7));
        break;
      case 1:
        b[at(b.size() - 1)] = static_cast<uint8_t>(at(255));
        break;
      case 2:
        b.resize(at(b.size()));
        break;
      case 3:
        b.insert(b.begin() + static_cast<long>(at(b.size())), static_cast<uint8_t>(at(255)));
        break;
      default:
        b.insert(b.end(), b.begin(), b.begin() + static_cast<long>(at(b.size())));
        break;
    }
  }
  return b;
}

std::vector<ml::Bytes> corpus() {
  return {
      ml::encodeMessage(ml::Ping{300, "node-b", {127, 0, 0, 1}, 7946, "node-a"}),
      ml::encodeMessage(ml::Alive{7, "node-a", {10, 0, 0, 1}, 7946, {}, {1, 5, 2, 0, 0, 0}}),
      ml::encodeMessage(ml::IndirectPing{9, {10, 1, 2, 3}, 7000, "t", true, {}, 0, {}}),
      ml::makeCompound(
          {ml::encodeMessage(ml::Suspect{1, "a", "b"}), ml::encodeMessage(ml::Dead{2, "a", "a"})}),
      ml::encodePushPull({{"a", {127, 0, 0, 1}, 1, {}, 1, ml::NodeState::Suspect, {1, 5, 2}}},
                         true),
  };
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fuzz)

BOOST_AUTO_TEST_CASE(packet_decoder_survives_mutations_and_respects_limits) {
  std::mt19937 rng(12345);
  const auto seeds = corpus();
  const ml::Keyring key = *ml::Keyring::create({ml::Bytes(32, 7)});
  size_t decoded = 0;
  for (int i = 0; i < kIterations; ++i) {
    const ml::Bytes& seed = seeds[static_cast<size_t>(i) % seeds.size()];
    const bool encrypted = i % 3 == 0;
    const ml::Security sec{encrypted ? &key : nullptr, true};
    ml::Bytes input = i % 2 == 0 ? *ml::sealPacket(seed, i % 4 == 0, sec) : seed;
    input = mutate(std::move(input), rng);
    const ml::DecodedPacket p = ml::openPacket(input, sec);
    decoded += p.messages.size();
    for (const ml::Message& m : p.messages) {
      if (const auto* a = std::get_if<ml::Alive>(&m)) {
        BOOST_REQUIRE(a->node.size() <= ml::kMaxNameLength);
        BOOST_REQUIRE(a->meta.size() <= ml::kMaxMetaLength);
      }
    }
  }
  // The corpus must still produce messages after mild mutations, or the fuzzer tests nothing.
  BOOST_TEST(decoded > 0U);
}

BOOST_AUTO_TEST_CASE(msgpack_reader_skips_random_bytes_without_overrun) {
  std::mt19937 rng(777);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < kIterations; ++i) {
    ml::Bytes input(static_cast<size_t>(byte(rng) % 64));
    for (auto& b : input) {
      b = static_cast<uint8_t>(byte(rng));
    }
    ml::msgpack::Reader r(input);
    while (r.remaining() > 0 && r.skip() == ml::msgpack::Status::Ok) {
    }
    BOOST_REQUIRE(r.offset() <= input.size());
  }
}

BOOST_AUTO_TEST_CASE(stream_parser_never_consumes_past_input_or_bound) {
  std::mt19937 rng(99);
  const auto seeds = corpus();
  const ml::Keyring key = *ml::Keyring::create({ml::Bytes(16, 3)});
  int complete = 0;
  for (int i = 0; i < kIterations; ++i) {
    const ml::Security sec{i % 2 == 0 ? &key : nullptr, true};
    ml::Bytes input = *ml::sealStream(seeds.back(), sec);
    input = mutate(std::move(input), rng);
    ml::StreamMessage out;
    ml::DropReason drop = ml::DropReason::None;
    const auto st = ml::parseStream(input, sec, 4096, out, drop);
    if (st == ml::StreamStatus::Complete) {
      ++complete;
      BOOST_REQUIRE(out.consumed <= input.size());
      BOOST_REQUIRE(out.states.size() <= ml::kMaxPushPullNodes);
    }
  }
  BOOST_TEST(complete > 0);
}

BOOST_AUTO_TEST_SUITE_END()
