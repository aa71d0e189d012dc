# SPDX-License-Identifier: Apache-2.0
# Memberlist with many members in one process (no Google Benchmark: it prints its own figures).
if(TARGET ingot_memberlist)
  add_executable(ingot_bench_memberlist_scale memberlist_scale.cpp)
  target_link_libraries(ingot_bench_memberlist_scale PRIVATE ingot_memberlist)
  # A smoke run at a tiny scale, so that the bench keeps working (figures are not checked).
  add_test(NAME ingot_bench_memberlist_scale_smoke
    COMMAND ingot_bench_memberlist_scale --members 8 --kills 1 --leaves 1 --steady 1
            --settle 0.5 --timing fast --bound 60)
  set_tests_properties(ingot_bench_memberlist_scale_smoke PROPERTIES
    TIMEOUT 120 PASS_REGULAR_EXPRESSION "leave 1: every survivor \\(6\\) saw it leave")
endif()
