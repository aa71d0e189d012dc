# SPDX-License-Identifier: Apache-2.0
# End-to-end controller benchmark (included by bench/CMakeLists.txt): 10,000 Services created in
# a burst against the test API server while ingot-controller runs. A plain executable, not a
# Google Benchmark: it drives processes and measures wall-clock latencies (docs/performance.md).
if(TARGET ingot_controller_testkit)
  add_executable(ingot_bench_controller ${CMAKE_CURRENT_LIST_DIR}/controller_bench.cpp)
  target_link_libraries(ingot_bench_controller PRIVATE ingot_controller_testkit)
endif()
