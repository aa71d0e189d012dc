// SPDX-License-Identifier: Apache-2.0
// The Layer 2 responder's per-frame work on one core: parse, ownership lookup among 1,000
// announced addresses (an ordered map, as the responder keeps them) and reply encoding.
#include <benchmark/benchmark.h>
#include <map>

#include "agent/l2/core/arp_codec.h"
#include "agent/l2/core/ndp_codec.h"

namespace l2 = ingot::agent::l2;

namespace {

const l2::Mac kOwn = {2, 0xaa, 0, 0, 0, 1};
const l2::Mac kPeer = {2, 0xbb, 0, 0, 0, 2};

std::map<l2::Ip4, int> owned4() {
  std::map<l2::Ip4, int> m;
  for (int i = 0; i < 1000; ++i) {
    m[l2::Ip4{10, 0, static_cast<uint8_t>(i >> 8), static_cast<uint8_t>(i)}] = 1;
  }
  return m;
}

std::map<l2::Ip6, int> owned6() {
  std::map<l2::Ip6, int> m;
  for (int i = 0; i < 1000; ++i) {
    m[l2::Ip6{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<uint8_t>(i >> 8),
              static_cast<uint8_t>(i)}] = 1;
  }
  return m;
}

void arp(benchmark::State& state, uint8_t last) {
  const auto owned = owned4();
  const auto frame =
      l2::encodeArp(l2::ArpPacket{l2::kBroadcastMac, kPeer, l2::kArpRequest, kPeer,
                                  l2::Ip4{10, 0, 9, 1}, l2::Mac{}, l2::Ip4{10, 0, 1, last}});
  for (auto _ : state) {
    auto d =
        l2::processArpRequest(frame, kOwn, [&](const l2::Ip4& ip) { return owned.count(ip) > 0; });
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ArpRequestAnswered(benchmark::State& state) {
  arp(state, 7);  // 10.0.1.7 is announced
}

void BM_NeighborSolicitAnswered(benchmark::State& state) {
  const auto owned = owned6();
  const l2::Ip6 target{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 7};
  const l2::Ip6 src{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9};
  const auto group = l2::solicitedNodeAddress(target);
  const auto frame = l2::encodeNeighborMessage(
      l2::NeighborMessage{l2::multicastMac(group), kPeer, src, group, 255,
                          l2::kIcmpv6NeighborSolicit, false, false, false, target, kPeer});
  const l2::Ip6 own_ip{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  for (auto _ : state) {
    auto d = l2::processNeighborSolicit(frame, kOwn, own_ip,
                                        [&](const l2::Ip6& ip) { return owned.count(ip) > 0; });
    benchmark::DoNotOptimize(d);
  }
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

BENCHMARK(BM_ArpRequestAnswered);
BENCHMARK(BM_NeighborSolicitAnswered);
BENCHMARK_MAIN();
