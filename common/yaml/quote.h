// SPDX-License-Identifier: Apache-2.0
// YAML scalar quoting with yaml-cpp's emitter (library ingot_yaml, the one yaml-cpp wrapper).
#pragma once

#include <string>
#include <string_view>

namespace ingot {

/// yamlScalar returns s as a YAML scalar that every YAML 1.1 or 1.2 reader (yaml-cpp, Go's
/// sigs.k8s.io/yaml, PyYAML) reads back as the same string. It is left plain when it consists of
/// letters, digits and . / - _ only, does not start with - or ., and cannot be read as a number,
/// boolean or null ("yes", "off", "~", "1_000", ...); otherwise it is double-quoted by yaml-cpp's
/// emitter, with 0x7f written as \x7f and invalid UTF-8 replaced by U+FFFD.
std::string yamlScalar(std::string_view s);

}  // namespace ingot
