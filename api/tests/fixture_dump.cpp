// SPDX-License-Identifier: Apache-2.0
// ingot_api_fixture_dump prints every fixture of api/tests/fixtures.h (the objects the validate
// tests start from, all valid) as compact JSON, one object per line, so that tests outside C++
// (the CRD schema tests in e2e/kubeapi) can check them too.
#include <iostream>

#include "api/codec.h"
#include "api/tests/fixtures.h"

int main() {
  for (const auto& object : ingot::api::testing::allObjects()) {
    std::cout << ingot::api::encodeAny(object) << "\n";
  }
  return 0;
}
