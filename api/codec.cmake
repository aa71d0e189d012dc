# SPDX-License-Identifier: Apache-2.0
# ingot_api: JSON codec, YAML manifest loading, field validation, BGPPeer conversion,
# ConfigurationState status helpers. Included by api/CMakeLists.txt once codec.cpp exists. Pure
# libraries link ingot_api_model, not this.
ingot_add_library(ingot_api
  SOURCES
    codec.cpp codec_common.cpp codec_core.cpp configuration_state.cpp convert.cpp duration.cpp manifest.cpp
    secret.cpp validate.cpp validate_bgp.cpp validate_frrk8s.cpp
  LIBRARIES ingot_api_model ingot_json ingot_net ingot_yaml)

ingot_add_test(ingot_api_test
  SOURCES
    tests/api_test_main.cpp tests/codec_test.cpp tests/configuration_state_test.cpp
    tests/convert_test.cpp tests/duration_test.cpp
    tests/manifest_test.cpp tests/manifest_fuzz_test.cpp tests/secret_test.cpp
    tests/validate_test.cpp tests/validate_frrk8s_test.cpp
  LIBRARIES ingot_api)

# The validate tests' fixtures as JSON lines, read by e2e/kubeapi/test_crds_in_step.py.
add_executable(ingot_api_fixture_dump tests/fixture_dump.cpp)
target_link_libraries(ingot_api_fixture_dump PRIVATE ingot_api)
