# SPDX-License-Identifier: Apache-2.0
# Layer 2 election benchmarks (included by bench/CMakeLists.txt); see docs/performance.md.
if(TARGET ingot_agent_core)
  ingot_add_bench(ingot_bench_election
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/election_bench.cpp
    LIBRARIES ingot_agent_core)
endif()
