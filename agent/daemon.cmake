# SPDX-License-Identifier: Apache-2.0
# ingot-agent: the daemon around agent/core and frr/ (included by agent/CMakeLists.txt).
# ingot_agent holds everything but main.cpp so that tests drive the same code.

ingot_add_library(ingot_agent
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/backends/backend.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backends/backend_frr.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backends/backend_l2.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backends/backend_l2_probe.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backends/backend_l2_status.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/bgp_status_writer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/compact_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/flags.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/drain_tracker.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/reconciler_drain.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backends/l2_hold_down.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/manager.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/manager_projections.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/membership_source.cpp
    ${CMAKE_CURRENT_LIST_DIR}/daemon/metrics.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/reconciler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/reconciler_service.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/reconciler_state.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/reconciler_status.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconcile/writes.cpp
  LIBRARIES ingot_agent_core ingot_frr ingot_agent_l2 ingot_memberlist ingot_frrgen ingot_config ingot_api
            ingot_json ingot_kube_daemon ingot_kube_compact ingot_kube ingot_daemon ingot_util)

add_executable(ingot-agent ${CMAKE_CURRENT_LIST_DIR}/daemon/main.cpp)
target_link_libraries(ingot-agent PRIVATE ingot_agent)

# Unit tests: flags, pure helpers, write bodies and the reconciler against kube's FakeApiClient
# (the same output as `ingotctl render` for tables of object sets).
ingot_add_test(ingot_agent_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/main_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/flags_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/membership_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/writes_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/reconciler_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/drain_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/incremental_sync_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/compact_cache_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/backend_l2_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/render_parity_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/bgp_status_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/bgp_availability_test.cpp
  LIBRARIES ingot_agent ingot_cli)

# AgentProcess: ingot-agent as a child process, for the integration tests.
ingot_add_library(ingot_agent_testkit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/support/agent_process.cpp
  LIBRARIES ingot_testing)
target_compile_definitions(ingot_agent_testkit PRIVATE
  INGOT_AGENT_BINARY="$<TARGET_FILE:ingot-agent>")
add_dependencies(ingot_agent_testkit ingot-agent)

# Integration: the test API server and a real ingot-agent process per case.
ingot_add_test(ingot_agent_integration_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/main_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/agent_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/economy_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/memberlist_test.cpp
  LIBRARIES ingot_agent_testkit ingot_controller_testkit ingot_agent)
target_compile_definitions(ingot_agent_integration_test PRIVATE
  INGOT_INGOTCTL_BINARY="$<TARGET_FILE:ingotctl>")
add_dependencies(ingot_agent_integration_test ingot-agent ingotctl)
set_tests_properties(ingot_agent_integration_test PROPERTIES LABELS integration TIMEOUT 180)

# Integration: ingot-agent answering ARP in network namespaces the test creates. Its own process:
# the API client's thread pool must be born inside the node's namespace, which the test enters
# before its first request.
ingot_add_test(ingot_agent_layer2_integration_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/layer2_main_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/layer2_test.cpp
  LIBRARIES ingot_agent_testkit ingot_controller_testkit ingot_agent)
set_tests_properties(ingot_agent_layer2_integration_test PROPERTIES LABELS integration TIMEOUT 120)

# Integration: ingot-agent in a cluster without frr-k8s (Layer 2 only, then frr-k8s' CRD
# installed and deleted), in network namespaces like the test above; its own process likewise.
ingot_add_test(ingot_agent_layer2_only_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/integration/layer2_only_test.cpp
  LIBRARIES ingot_agent_testkit ingot_controller_testkit ingot_agent)
set_tests_properties(ingot_agent_layer2_only_test PROPERTIES LABELS integration TIMEOUT 180)

# Integration: the request economy with Layer 2 (economy.h), in network namespaces like the test
# above and for the same reason in its own process.
ingot_add_test(ingot_agent_layer2_economy_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/tests/integration/layer2_economy_test.cpp
  LIBRARIES ingot_agent_testkit ingot_controller_testkit ingot_agent)
set_tests_properties(ingot_agent_layer2_economy_test PROPERTIES LABELS integration TIMEOUT 180)
