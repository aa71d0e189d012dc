// SPDX-License-Identifier: Apache-2.0
#include "config/config.h"

namespace ingot::config {

std::string formatConfigError(const ConfigError& error) {
  std::string out = error.kind;
  if (!error.name.empty()) {
    out += (out.empty() ? "" : " ") +
           (error.namespace_.empty() ? error.name : error.namespace_ + "/" + error.name);
  }
  if (!error.field.empty()) out += (out.empty() ? "" : " ") + error.field;
  return out.empty() ? error.message : out + ": " + error.message;
}

}  // namespace ingot::config
