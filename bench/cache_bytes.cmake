# SPDX-License-Identifier: Apache-2.0
# Heap bytes per cached object in both daemons' informer caches (included by
# bench/CMakeLists.txt): a plain executable that counts mallinfo2's bytes in use.
if(TARGET ingot_agent AND TARGET ingot_controller)
  add_executable(ingot_bench_cache_bytes ${CMAKE_CURRENT_LIST_DIR}/cache_bytes_bench.cpp)
  target_link_libraries(ingot_bench_cache_bytes PRIVATE ingot_agent ingot_controller
                                                        ingot_kube_compact)
endif()
