# SPDX-License-Identifier: Apache-2.0
# bench/scale.py is run by hand (docs/performance.md); CTest runs it at a tiny scale only.
if(TARGET ingot-agent AND TARGET ingot-controller)
  add_test(NAME ingot_bench_scale_smoke
    COMMAND /usr/bin/python3 -m pytest -q -p no:cacheprovider
            ${CMAKE_CURRENT_SOURCE_DIR}/scale_test.py)
  set_tests_properties(ingot_bench_scale_smoke PROPERTIES
    TIMEOUT 300
    ENVIRONMENT "INGOT_AGENT=$<TARGET_FILE:ingot-agent>;INGOT_CONTROLLER=$<TARGET_FILE:ingot-controller>")
endif()
