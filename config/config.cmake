# SPDX-License-Identifier: Apache-2.0
# ingot_config: the pure cross-object parser (MetalLB's internal/config). Links only the object
# model, the IP types and Result; never the JSON/YAML codec.
ingot_add_library(ingot_config
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/parser.cpp
    ${CMAKE_CURRENT_LIST_DIR}/helpers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/bfd.cpp
    ${CMAKE_CURRENT_LIST_DIR}/peers.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pools.cpp
    ${CMAKE_CURRENT_LIST_DIR}/communities.cpp
    ${CMAKE_CURRENT_LIST_DIR}/l2_advertisements.cpp
    ${CMAKE_CURRENT_LIST_DIR}/bgp_advertisements.cpp
    ${CMAKE_CURRENT_LIST_DIR}/backend.cpp
    ${CMAKE_CURRENT_LIST_DIR}/config_error.cpp
    ${CMAKE_CURRENT_LIST_DIR}/scope.cpp
  LIBRARIES ingot_api_model ingot_net ingot_util)

ingot_add_test(ingot_config_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/tests/parser_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/pools_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/peers_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/communities_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/l2_advertisements_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/bgp_advertisements_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/backend_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/config_error_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tests/scope_test.cpp
  LIBRARIES ingot_config)
