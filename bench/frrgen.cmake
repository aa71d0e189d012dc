# SPDX-License-Identifier: Apache-2.0
# frrgen benchmark (included by bench/CMakeLists.txt): build + merge + render of one node's BGP
# configuration for 10,000 prefixes × 50 neighbors, plus the YANG validation of that output.
if(COMMAND ingot_add_bench)
  ingot_add_bench(ingot_bench_frrgen
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/frrgen_bench.cpp
    LIBRARIES ingot_frrgen ingot_frrgen_yang ingot_api)
else()
  find_package(benchmark CONFIG REQUIRED)
  add_executable(ingot_bench_frrgen ${CMAKE_CURRENT_LIST_DIR}/frrgen_bench.cpp)
  target_link_libraries(ingot_bench_frrgen PRIVATE ingot_frrgen ingot_frrgen_yang ingot_api benchmark::benchmark)
endif()
