# SPDX-License-Identifier: Apache-2.0
# The Layer 2 election's independent oracle: a Go program (agent/tests/core/oracle) built
# offline with Debian's Go, which formats addresses with net.IP.String() and orders nodes with
# crypto/sha256. The test that compares 10,000 seeded cases with it exists only when `go` does.
find_program(INGOT_GO go)
if(NOT INGOT_GO)
  message(STATUS "go not found: the L2 election oracle test is not built")
  return()
endif()
set(oracle_src ${CMAKE_CURRENT_SOURCE_DIR}/tests/core/oracle/main.go)
set(oracle_bin ${CMAKE_CURRENT_BINARY_DIR}/l2oracle)
add_custom_command(
  OUTPUT ${oracle_bin}
  COMMAND ${CMAKE_COMMAND} -E env GO111MODULE=off GOPATH=/usr/share/gocode
          GOCACHE=${CMAKE_CURRENT_BINARY_DIR}/gocache GOPROXY=off
          ${INGOT_GO} build -o ${oracle_bin} ${oracle_src}
  DEPENDS ${oracle_src}
  COMMENT "Building the L2 election oracle (Go)")
add_custom_target(ingot_l2oracle ALL DEPENDS ${oracle_bin})

ingot_add_test(ingot_election_oracle_test
  SOURCES tests/core/election_oracle_test.cpp
  LIBRARIES ingot_agent_core ingot_json)
add_dependencies(ingot_election_oracle_test ingot_l2oracle)
set_property(TEST ingot_election_oracle_test APPEND PROPERTY ENVIRONMENT
             "INGOT_L2_ORACLE=${oracle_bin}")
