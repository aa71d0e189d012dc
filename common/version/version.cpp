// SPDX-License-Identifier: Apache-2.0
#include "common/version/version.h"

namespace ingot::version {

std::string versionText(std::string_view program, const BuildInfo& info) {
  std::string out(program);
  out += " version ";
  out += info.version;
  out += " (revision ";
  out += info.revision;
  out += ")\n";
  return out;
}

}  // namespace ingot::version
