// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <array>
#include <random>
#include <stdexcept>
#include <string_view>

#include "agent/l2/core/frame.h"
#include "common/net/ip.h"

namespace ingot::agent::l2::test {

/// The fixtures' MAC addresses: this node's, a neighbour's that asks, and a rogue host's that
/// claims an address.
inline const Mac kOwn = {0x02, 0xaa, 0, 0, 0, 0x01};
inline const Mac kPeer = {0x02, 0xbb, 0, 0, 0, 0x02};
inline const Mac kRogue = {0x02, 0xcc, 0, 0, 0, 0x03};

/// ip parses an address literal of a fixture.
inline net::IpAddress ip(const char* text) {
  return *net::IpAddress::parse(text);
}

/// hex decodes hex digits, ignoring spaces (fixtures are written field by field).
inline Bytes hex(std::string_view text) {
  Bytes out;
  int high = -1;
  for (char c : text) {
    if (c == ' ') {
      continue;
    }
    int v = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (v < 0) {
      throw std::invalid_argument("bad hex digit in fixture");
    }
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<uint8_t>(high * 16 + v));
      high = -1;
    }
  }
  return out;
}

/// fill sets every byte of an array from the generator.
template <size_t N>
void fill(std::mt19937& rng, std::array<uint8_t, N>& a) {
  for (auto& b : a) {
    b = static_cast<uint8_t>(rng());
  }
}

/// mutate returns a copy of seed with a few random byte changes, then maybe truncated or extended.
inline Bytes mutate(std::mt19937& rng, const Bytes& seed) {
  Bytes f = seed;
  const int flips = static_cast<int>(rng() % 4);
  for (int i = 0; i < flips; ++i) {
    f[rng() % f.size()] = static_cast<uint8_t>(rng());
  }
  switch (rng() % 4) {
    case 0:
      f.resize(rng() % (f.size() + 1));
      break;
    case 1:
      f.resize(f.size() + rng() % 64, static_cast<uint8_t>(rng()));
      break;
    default:
      break;
  }
  return f;
}

}  // namespace ingot::agent::l2::test
