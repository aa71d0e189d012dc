// SPDX-License-Identifier: Apache-2.0
#define BOOST_TEST_MODULE ingot_memberlist
#include "agent/memberlist/core/wire.h"

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "agent/memberlist/core/lzw.h"
#include "agent/memberlist/core/messages.h"
#include "agent/memberlist/core/security.h"

namespace ml = ingot::agent::memberlist;

namespace {

ml::Bytes hex(const std::string& h) {
  ml::Bytes out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

ml::Bytes bytesOf(const std::string& s) {
  return ml::Bytes(s.begin(), s.end());
}

ml::Keyring ring(const std::string& secret) {
  return *ml::Keyring::create({ml::deriveMetalLbKey(bytesOf(secret))});
}

ml::Message decodeOne(const ml::Bytes& b) {
  ml::Message m;
  BOOST_REQUIRE(ml::decodeBody(static_cast<ml::MessageType>(b[0]), {b.data() + 1, b.size() - 1},
                               m) == ml::msgpack::Status::Ok);
  return m;
}

ml::PushNodeState state(const std::string& name, ml::NodeState st) {
  return {name, {127, 0, 0, 1}, 7946, {}, 3, st, {1, 5, 2, 0, 0, 0}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(wire)

// Fixtures produced by hashicorp/go-msgpack's MsgpackHandle with memberlist's struct layouts.
BOOST_AUTO_TEST_CASE(messages_encode_byte_identical_to_go_and_decode_back) {
  struct Case {
    std::string desc;
    ml::Message msg;
    std::string go_hex;
  };
  const std::vector<Case> cases = {
      {"ping with reply-to fields", ml::Ping{300, "node-b", {127, 0, 0, 1}, 7946, "node-a"},
       "0085a44e6f6465a66e6f64652d62a55365714e6fcd012caa536f7572636541646472a47f000001aa536f757263"
       "654e6f6465a66e6f64652d61aa536f75726365506f7274cd1f0a"},
      {"alive with nil meta",
       ml::Alive{70000, "node-a", {10, 0, 0, 1}, 7946, {}, {1, 5, 2, 0, 0, 0}},
       "0486a441646472a40a000001ab496e6361726e6174696f6ece00011170a44d657461c0a44e6f6465a66e6f64"
       "652d61a4506f7274cd1f0aa356736ea6010502000000"},
      {"ack with nil payload", ml::Ack{5, {}}, "0282a75061796c6f6164c0a55365714e6f05"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      const ml::Bytes encoded = ml::encodeMessage(c.msg);
      BOOST_TEST(encoded == hex(c.go_hex), boost::test_tools::per_element());
      BOOST_TEST((decodeOne(hex(c.go_hex)) == c.msg));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_message_type_round_trips) {
  const std::vector<ml::Message> msgs = {
      ml::IndirectPing{9, {10, 1, 2, 3}, 7000, "t", true, {10, 9, 9, 9}, 7001, "src"},
      ml::Nack{77},
      ml::Suspect{4, "n1", "n2"},
      ml::Dead{5, "n1", "n1"},
      ml::Ack{1, {1, 2, 3}},
  };
  for (const ml::Message& m : msgs) {
    BOOST_TEST((decodeOne(ml::encodeMessage(m)) == m));
  }
}

BOOST_AUTO_TEST_CASE(metallb_key_derivation_appends_sha256_of_empty_input) {
  BOOST_TEST(ml::deriveMetalLbKey(bytesOf("short-secret")) ==
                 hex("73686f72742d736563726574e3b0c44298fc1c149afbf4c8996fb92427ae41e4"),
             boost::test_tools::per_element());
  const std::string long_secret(40, 'x');
  BOOST_TEST(ml::deriveMetalLbKey(bytesOf(long_secret)) == bytesOf(std::string(32, 'x')),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(decrypts_go_sealed_payload_and_rejects_wrong_key_or_data) {
  const ml::Bytes sealed = hex(
      "010102030405060708090a0b0ca9b3a99aee78c860d962e55b50842efd5fe7f66b73d6a31e9f2d3c988b2a6f4"
      "d");
  const ml::Bytes aad = {10, 0, 0, 0, 45};
  auto plain = ml::decryptPayload(ring("short-secret"), sealed, aad);
  BOOST_REQUIRE(plain.has_value());
  BOOST_TEST(std::string(plain->begin(), plain->end()) == "hello memberlist");
  BOOST_TEST(!ml::decryptPayload(ring("other-secret"), sealed, aad).has_value());
  BOOST_TEST(!ml::decryptPayload(ring("short-secret"), sealed, {}).has_value());
  BOOST_TEST(!ml::Keyring::create({ml::Bytes(20, 1)}).has_value());
}

BOOST_AUTO_TEST_CASE(packets_seal_and_open_with_crc_encryption_and_compound) {
  const ml::Keyring key = ring("k");
  const ml::Keyring other = ring("j");
  const ml::Bytes compound = ml::makeCompound(
      {ml::encodeMessage(ml::Ping{1, "a", {}, 0, {}}), ml::encodeMessage(ml::Nack{2}), {0xff}});
  struct Case {
    std::string desc;
    const ml::Keyring* send;
    const ml::Keyring* recv;
    bool crc;
    bool corrupt;
    ml::DropReason drop;
    size_t messages;
  };
  const std::vector<Case> cases = {
      {"plain with crc", nullptr, nullptr, true, false, ml::DropReason::UnknownType, 2},
      {"encrypted", &key, &key, false, false, ml::DropReason::UnknownType, 2},
      {"wrong key", &key, &other, true, false, ml::DropReason::Decrypt, 0},
      {"plaintext to an encrypted node", nullptr, &key, false, false, ml::DropReason::Decrypt, 0},
      {"corrupted crc", nullptr, nullptr, true, true, ml::DropReason::Checksum, 0},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      auto sealed = ml::sealPacket(compound, c.crc, {c.send, true});
      BOOST_REQUIRE(sealed.has_value());
      if (c.corrupt) {
        sealed->back() ^= 0x01;
      }
      const ml::DecodedPacket p = ml::openPacket(*sealed, {c.recv, true});
      BOOST_TEST(p.messages.size() == c.messages);
      BOOST_TEST(ml::dropReasonName(p.drop) == ml::dropReasonName(c.drop));
    }
  }
}

BOOST_AUTO_TEST_CASE(push_pull_stream_is_incomplete_at_every_prefix_then_complete) {
  const ml::Keyring key = ring("k");
  const std::vector<ml::PushNodeState> states = {state("a", ml::NodeState::Alive),
                                                 state("b", ml::NodeState::Left)};
  for (const ml::Keyring* r : {static_cast<const ml::Keyring*>(nullptr), &key}) {
    auto framed = ml::sealStream(ml::encodePushPull(states, true), {r, true});
    BOOST_REQUIRE(framed.has_value());
    ml::StreamMessage out;
    ml::DropReason drop = ml::DropReason::None;
    for (size_t n = 0; n < framed->size(); ++n) {
      BOOST_TEST((ml::parseStream({framed->data(), n}, {r, true}, 1 << 20, out, drop) ==
                  ml::StreamStatus::Incomplete));
    }
    BOOST_REQUIRE(
        (ml::parseStream(*framed, {r, true}, 1 << 20, out, drop) == ml::StreamStatus::Complete));
    BOOST_TEST(out.header.join);
    BOOST_TEST((out.states == states));
    BOOST_TEST(out.consumed == framed->size());
  }
}

BOOST_AUTO_TEST_CASE(bad_streams_are_invalid_with_a_reason) {
  const ml::Keyring key = ring("k");
  ml::Bytes huge_name =
      ml::encodePushPull({state(std::string(1 << 20, 'n'), ml::NodeState::Alive)}, false);
  struct Case {
    std::string desc;
    ml::Bytes data;
    const ml::Keyring* ring;
    ml::DropReason drop;
  };
  const std::vector<Case> cases = {
      {"1 MB member name", huge_name, nullptr, ml::DropReason::Malformed},
      {"plaintext while a key is set", ml::encodePushPull({}, false), &key,
       ml::DropReason::Decrypt},
      {"encrypted length over the bound", {10, 0x10, 0, 0, 0}, &key, ml::DropReason::TooLarge},
      {"garbage type", {200, 1, 2}, nullptr, ml::DropReason::UnknownType},
      {"user message", {8, 0x80}, nullptr, ml::DropReason::Unsupported},
      {"compressed garbage",
       {9, 0x82, 0xa4, 0x41, 0x6c, 0x67, 0x6f, 0x00, 0xa3, 0x42, 0x75, 0x66, 0xa1, 0xff},
       nullptr,
       ml::DropReason::Malformed},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.desc) {
      ml::StreamMessage out;
      ml::DropReason drop = ml::DropReason::None;
      BOOST_TEST((ml::parseStream(c.data, {c.ring, true}, 64 * 1024, out, drop) ==
                  ml::StreamStatus::Invalid));
      BOOST_TEST(ml::dropReasonName(drop) == ml::dropReasonName(c.drop));
    }
  }
  // A stream that keeps sending valid states is cut at the byte bound, not buffered on.
  std::vector<ml::PushNodeState> many(3000, state("node-with-a-name", ml::NodeState::Alive));
  const ml::Bytes endless = ml::encodePushPull(many, false);
  ml::StreamMessage out;
  ml::DropReason drop = ml::DropReason::None;
  BOOST_TEST((ml::parseStream({endless.data(), 64 * 1024}, {nullptr, true}, 64 * 1024, out, drop) ==
              ml::StreamStatus::Invalid));
  BOOST_TEST(ml::dropReasonName(drop) == ml::dropReasonName(ml::DropReason::TooLarge));
  // An oversized name is refused from its length alone, before its bytes arrive.
  const ml::Bytes prefix(huge_name.begin(), huge_name.begin() + 200);
  BOOST_TEST((ml::parseStream(prefix, {nullptr, true}, 64 * 1024, out, drop) ==
              ml::StreamStatus::Invalid));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lzw)

// Fixtures from Go's compress/lzw writer (LSB, 8-bit literals), as memberlist compresses.
BOOST_AUTO_TEST_CASE(compresses_like_go_and_round_trips) {
  const ml::Bytes small = bytesOf("abababababab");
  BOOST_TEST(ml::lzwCompress(small) == hex("00c388114870a0c180"), boost::test_tools::per_element());
  std::string text;
  for (int i = 0; i < 300; ++i) {
    text += "memberlist gossip ";
  }
  const ml::Bytes packed = ml::lzwCompress(bytesOf(text));
  BOOST_TEST(packed.size() == 511U);
  BOOST_TEST(ml::Bytes(packed.begin(), packed.begin() + 32) ==
                 hex("00db946923a68c1c3669e6d00171e6cd9c3969e0801048d02042850c1d429448"),
             boost::test_tools::per_element());
  BOOST_TEST(*ml::lzwDecompress(packed, 1 << 20) == bytesOf(text),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(round_trips_past_the_code_table_reset_and_bounds_output) {
  ml::Bytes data(200000);
  uint32_t x = 1;
  for (auto& b : data) {
    x = x * 1103515245U + 12345U;
    b = static_cast<uint8_t>((x >> 16) % 40);  // enough repetition to fill 4096 codes
  }
  const ml::Bytes packed = ml::lzwCompress(data);
  BOOST_TEST(*ml::lzwDecompress(packed, data.size()) == data, boost::test_tools::per_element());
  BOOST_TEST(!ml::lzwDecompress(packed, data.size() - 1).has_value());
  BOOST_TEST(!ml::lzwDecompress({packed.data(), packed.size() / 2}, 1 << 20).has_value());
}

BOOST_AUTO_TEST_CASE(compressed_packets_and_streams_decode) {
  const ml::Bytes ping = ml::encodeMessage(ml::Ping{4, "n", {}, 0, {}});
  const ml::Bytes packet = ml::encodeCompressed({0, ml::lzwCompress(ping)});
  const ml::DecodedPacket p = ml::openPacket(packet, {});
  BOOST_REQUIRE(p.messages.size() == 1U);
  BOOST_TEST(std::get<ml::Ping>(p.messages[0]).seq_no == 4U);
  const ml::Bytes pp = ml::encodePushPull({state("a", ml::NodeState::Alive)}, false);
  const ml::Bytes stream = ml::encodeCompressed({0, ml::lzwCompress(pp)});
  ml::StreamMessage out;
  ml::DropReason drop = ml::DropReason::None;
  BOOST_TEST((ml::parseStream({stream.data(), stream.size() - 1}, {}, 1 << 20, out, drop) ==
              ml::StreamStatus::Incomplete));
  BOOST_REQUIRE((ml::parseStream(stream, {}, 1 << 20, out, drop) == ml::StreamStatus::Complete));
  BOOST_TEST(out.states.size() == 1U);
}

BOOST_AUTO_TEST_SUITE_END()
