# SPDX-License-Identifier: Apache-2.0
# ingot_agent_bgp: applies a rendered frr.conf to the node's FRR (frr-reload.py loop, vtysh), the
# incremental engine for the compact policy shape (delta, persistent vtysh, read-back), the
# subprocess helper they run tools with, the BGP/BFD session metrics read from FRR's JSON, and the
# cool-down that paces applies (shared with ingot-frr).
# Included from agent/CMakeLists.txt.
ingot_add_library(ingot_agent_bgp
  SOURCES bgp/process.cpp bgp/reload_delta.cpp bgp/frr_driver.cpp bgp/compact_delta.cpp
          bgp/vtysh_session.cpp bgp/incremental.cpp bgp/apply_health.cpp bgp/session_metrics.cpp
          bgp/cooldown.cpp
  LIBRARIES ingot_util ingot_frrgen ingot_json ingot_daemon)

# Unit tests: parser on captured frr-reload.py output, the process helper, and the driver and
# applier against a fake frr-reload.py (tests/bgp/testdata/fake-frr-reload.py). No root needed.
ingot_add_test(ingot_agent_bgp_test
  SOURCES tests/bgp/reload_delta_test.cpp tests/bgp/process_test.cpp tests/bgp/frr_driver_test.cpp
          tests/bgp/compact_delta_test.cpp tests/bgp/incremental_test.cpp
          tests/bgp/vtysh_session_test.cpp tests/bgp/session_metrics_test.cpp
          tests/bgp/apply_health_test.cpp tests/bgp/cooldown_test.cpp
          tests/bgp/bgp_test_main.cpp
  LIBRARIES ingot_agent_bgp)

# Real FRR in a network namespace the test creates (root; skips with a message otherwise).
ingot_add_test(ingot_agent_bgp_frr_test
  SOURCES tests/bgp/frr_real_test.cpp
  LIBRARIES ingot_agent_bgp ingot_testing
  LABELS frr)
set_tests_properties(ingot_agent_bgp_frr_test PROPERTIES SKIP_REGULAR_EXPRESSION "skipped: "
  TIMEOUT 300)

# The incremental engine against real FRR: a ToR and a node namespace with eBGP + BFD (root; skips
# with a message otherwise).
ingot_add_test(ingot_agent_bgp_incremental_frr_test
  SOURCES tests/bgp/incremental_real_test.cpp
  LIBRARIES ingot_agent_bgp
  LABELS frr)
set_tests_properties(ingot_agent_bgp_incremental_frr_test PROPERTIES
  SKIP_REGULAR_EXPRESSION "skipped: " TIMEOUT 300)

# The incremental engine when FRR fails: a rejected configuration, bgpd stopped, restarted and
# frozen with SIGSTOP (root; skips with a message otherwise).
ingot_add_test(ingot_agent_bgp_failure_frr_test
  SOURCES tests/bgp/failure_real_test.cpp
  LIBRARIES ingot_agent_bgp
  LABELS frr)
set_tests_properties(ingot_agent_bgp_failure_frr_test PROPERTIES
  SKIP_REGULAR_EXPRESSION "skipped: " TIMEOUT 300)
