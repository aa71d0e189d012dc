# SPDX-License-Identifier: Apache-2.0
# ingot_memberlist: memberlist-compatible gossip. The codec and the SWIM state machine are pure;
# transport.cpp is the only socket code. Included from agent/CMakeLists.txt.
ingot_add_library(ingot_memberlist
  SOURCES memberlist/msgpack.cpp memberlist/messages.cpp memberlist/security.cpp
          memberlist/wire.cpp memberlist/membership.cpp memberlist/probe.cpp
  LIBRARIES ingot_util OpenSSL::Crypto)

ingot_add_test(ingot_memberlist_test
  SOURCES tests/memberlist/wire_test.cpp tests/memberlist/fuzz_test.cpp
          tests/memberlist/membership_test.cpp
  LIBRARIES ingot_memberlist)
