# SPDX-License-Identifier: Apache-2.0
# BGP apply strategies on real FRR in network namespaces (included by bench/CMakeLists.txt): a
# plain program printing a table, run by hand as root (docs/performance.md).
if(COMMAND ingot_add_bench AND TARGET ingot_frr)
  ingot_add_bench(ingot_bench_bgp_strategies
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/bgp_strategies.cpp
    LIBRARIES ingot_frr ingot_frrgen)
endif()
