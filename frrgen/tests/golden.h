// SPDX-License-Identifier: Apache-2.0
// Golden files: frrgen/tests/testdata/<suite>.<case>.golden, rewritten when INGOT_UPDATE_GOLDEN=1.
#pragma once

#include <string>

namespace ingot::frrgen::testing {

/// testdataDir is $INGOT_SOURCE_DIR/frrgen/tests/testdata, or tests/testdata relative to the
/// working directory (CTest runs in frrgen/).
std::string testdataDir();

/// checkGolden compares actual with the golden file of suite.name and reports a Boost.Test
/// failure showing the first differing line. With INGOT_UPDATE_GOLDEN=1 it writes the file
/// instead. A missing file is a failure that says how to create it.
void checkGolden(const std::string& suite, const std::string& name, const std::string& actual);

}  // namespace ingot::frrgen::testing
