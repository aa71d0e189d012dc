# SPDX-License-Identifier: Apache-2.0
# Memberlist-compatible gossip, included from agent/CMakeLists.txt.
# ingot_memberlist_core (pure, agent/memberlist/core/): codec, crypto, options and the SWIM state
# machine; no sockets, threads or clocks. ingot_memberlist: the socket transport (the only gossip
# I/O) on top.
ingot_add_library(ingot_memberlist_core
  SOURCES memberlist/core/msgpack.cpp memberlist/core/messages.cpp memberlist/core/security.cpp
          memberlist/core/wire.cpp memberlist/core/lzw.cpp memberlist/core/membership.cpp
          memberlist/core/probe.cpp memberlist/core/options.cpp memberlist/core/tuning.cpp
  LIBRARIES ingot_util ingot_json OpenSSL::Crypto)
ingot_add_library(ingot_memberlist
  SOURCES memberlist/transport.cpp memberlist/connections.cpp
  LIBRARIES ingot_memberlist_core)

ingot_add_test(ingot_memberlist_test
  SOURCES tests/memberlist/wire_test.cpp tests/memberlist/fuzz_test.cpp
          tests/memberlist/membership_test.cpp tests/memberlist/options_test.cpp
  LIBRARIES ingot_memberlist_core)

# The interop and benchmark peer: one member on stdin/stdout (see peer_main.cpp).
add_executable(ingot-memberlist-peer tests/memberlist/peer_main.cpp)
target_link_libraries(ingot-memberlist-peer PRIVATE ingot_memberlist ingot_agent_core)

# Real sockets on 127.0.0.1: bad input against an Ingot member, and interop with
# hashicorp/memberlist (builds the Go peer offline; those tests skip without Go).
add_test(NAME ingot_memberlist_interop
  COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider -rs
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/memberlist/test_bad_input.py
          ${CMAKE_CURRENT_SOURCE_DIR}/tests/memberlist/test_interop.py)
set_tests_properties(ingot_memberlist_interop PROPERTIES
  LABELS interop TIMEOUT 600
  ENVIRONMENT "INGOT_ML_PEER=$<TARGET_FILE:ingot-memberlist-peer>;INGOT_SOURCE_DIR=${PROJECT_SOURCE_DIR};INGOT_BINARY_DIR=${PROJECT_BINARY_DIR}")

# The socket transport on 127.0.0.1 (ports from the kernel).
ingot_add_test(ingot_memberlist_transport_test
  SOURCES tests/memberlist/transport_test.cpp
  LIBRARIES ingot_memberlist ingot_testing)
