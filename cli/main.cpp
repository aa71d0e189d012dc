// SPDX-License-Identifier: Apache-2.0
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/version/version.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() == 2 && (args[1] == "version" || args[1] == "--version")) {
    std::cout << ingot::version::versionText("ingotctl");
    return 0;
  }
  return ingot::cli::runMain(args, std::cout, std::cerr);
}
