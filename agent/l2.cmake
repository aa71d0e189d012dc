# SPDX-License-Identifier: Apache-2.0
find_package(Threads REQUIRED)
# ingot_agent_l2_core (pure, agent/l2/core/): Ethernet frames, wire-order addresses, the ARP/NDP
# codecs and reply decisions, the conflict-probe frames and the probe state machine; no sockets,
# threads or clocks.
ingot_add_library(ingot_agent_l2_core
  SOURCES l2/core/frame.cpp l2/core/addresses.cpp l2/core/arp_codec.cpp l2/core/ndp_codec.cpp
    l2/core/probe.cpp l2/core/probe_frames.cpp
  LIBRARIES ingot_net ingot_util)
# ingot_agent_l2: the Layer 2 I/O on top (responder, its sockets, interface scan).
ingot_add_library(ingot_agent_l2
  SOURCES l2/interfaces.cpp l2/interfaces_netlink.cpp l2/socket_io.cpp l2/responder.cpp
    l2/responder_loop.cpp l2/responder_probe.cpp
  LIBRARIES ingot_agent_l2_core ingot_net ingot_util ingot_yaml Threads::Threads)

ingot_add_test(ingot_agent_l2_test
  SOURCES tests/l2/main_test.cpp tests/l2/arp_codec_test.cpp tests/l2/ndp_codec_test.cpp
    tests/l2/interfaces_test.cpp tests/l2/probe_test.cpp tests/l2/probe_frames_test.cpp
  LIBRARIES ingot_agent_l2)

# Real sockets between two network namespaces the test creates (skipped when not root).
ingot_add_test(ingot_agent_l2_netns_test
  SOURCES tests/l2/responder_netns_test.cpp
  LIBRARIES ingot_agent_l2)
