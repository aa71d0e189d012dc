# SPDX-License-Identifier: Apache-2.0
# ingot-controller: the daemon around controller/core (included by controller/CMakeLists.txt).
# ingot_controller holds everything but main.cpp so that tests drive the same code.
ingot_add_library(ingot_controller
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/announce_watch.cpp
    ${CMAKE_CURRENT_LIST_DIR}/compact_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/flags.cpp
    ${CMAKE_CURRENT_LIST_DIR}/manager.cpp
    ${CMAKE_CURRENT_LIST_DIR}/metrics.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ml_secret.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconciler.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconciler_announce.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reconciler_status.cpp
    ${CMAKE_CURRENT_LIST_DIR}/status_writes.cpp
    ${CMAKE_CURRENT_LIST_DIR}/write_pool.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/admission.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/convert.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/json.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/rotation.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/rotator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/server.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/service.cpp
    ${CMAKE_CURRENT_LIST_DIR}/webhook/webhooks.cpp
  LIBRARIES ingot_controller_core ingot_controller_unannounced ingot_config ingot_api ingot_json ingot_kube_daemon ingot_kube_compact ingot_kube ingot_daemon ingot_http ingot_util
            OpenSSL::Crypto OpenSSL::SSL)

add_executable(ingot-controller ${CMAKE_CURRENT_LIST_DIR}/main.cpp)
target_link_libraries(ingot-controller PRIVATE ingot_controller)

# Unit tests: flags, logging, metrics, HTTP responder, write bodies and the reconciler against
# kube's FakeApiClient.
ingot_add_test(ingot_controller_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/main_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/compact_cache_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/flags_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/log_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/metrics_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/ml_secret_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/status_writes_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/daemon/reconciler_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/webhook/admission_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/webhook/certs_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/webhook/convert_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/webhook/rotation_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/webhook/rotator_test.cpp
  LIBRARIES ingot_controller)

# Test support shared by the integration tests and the benchmark: start the test API server and
# ingot-controller as child processes through the shared launcher (testing/), talk to them.
ingot_add_library(ingot_controller_testkit
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/support/cluster.cpp
  LIBRARIES ingot_testing ingot_kube ingot_api)
target_compile_definitions(ingot_controller_testkit PUBLIC
  INGOT_KUBEAPI_SERVER="${PROJECT_SOURCE_DIR}/e2e/kubeapi/server.py"
  INGOT_CONTROLLER_BINARY="$<TARGET_FILE:ingot-controller>")
add_dependencies(ingot_controller_testkit ingot-controller)

# Integration: each case starts its own test API server and controller processes.
ingot_add_test(ingot_controller_integration_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/main_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/kubectl_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/restart_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/economy_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/faults_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/config_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/startup_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/ml_secret_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/integration/unannounced_test.cpp
  LIBRARIES ingot_controller_testkit
  LABELS integration)
set_tests_properties(ingot_controller_integration_test PROPERTIES TIMEOUT 240)
