// SPDX-License-Identifier: Apache-2.0
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  return ingot::cli::runMain(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
