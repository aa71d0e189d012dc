# SPDX-License-Identifier: Apache-2.0
# ingot_agent_l2: the Layer 2 data plane (ARP/NDP codecs and decisions, responder, interface scan).
ingot_add_library(ingot_agent_l2
  SOURCES l2/frame.cpp l2/arp_codec.cpp l2/ndp_codec.cpp
  LIBRARIES ingot_net ingot_util)

ingot_add_test(ingot_agent_l2_test
  SOURCES tests/l2/main_test.cpp tests/l2/arp_codec_test.cpp tests/l2/ndp_codec_test.cpp
  LIBRARIES ingot_agent_l2)
