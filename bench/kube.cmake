# SPDX-License-Identifier: Apache-2.0
# kube decoding benchmark (included by bench/CMakeLists.txt): watch-stream framing and a
# 10,000-object list page, with events/s and heap allocations per object.
if(COMMAND ingot_add_bench AND TARGET ingot_kube)
  ingot_add_bench(ingot_bench_kube_decode
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_decode_bench.cpp ${CMAKE_CURRENT_LIST_DIR}/alloc_counter.cpp
    LIBRARIES ingot_kube)
endif()
