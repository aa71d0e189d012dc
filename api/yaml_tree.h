// SPDX-License-Identifier: Apache-2.0
// YAML text -> json::Value documents, resolved the way Kubernetes' sigs.k8s.io/yaml (go-yaml v2,
// YAML 1.1 scalars) turns YAML into JSON: plain `123` is a number and `true`/`yes`/`on` a
// boolean, while quoted "123" stays a string; anchors, aliases and merge keys (`<<`) are
// expanded. Bounded: nesting deeper than json::kMaxDepth, alias expansion beyond a budget
// proportional to the input, and invalid UTF-8 are errors, never crashes or hangs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"

namespace ingot::api {

/// YamlDocument is one document of a stream; line is where its content starts (1-based).
struct YamlDocument {
  json::Value root;  ///< null for an empty document
  int line = 0;
};

/// YamlError says where parsing stopped and why.
struct YamlError {
  int line = 0;
  std::string message;
};

/// YamlStream is the result of parsing: the documents before the first error, and that error.
struct YamlStream {
  std::vector<YamlDocument> documents;
  std::optional<YamlError> error;
};

/// parseYamlStream parses every document of text. It never throws.
YamlStream parseYamlStream(std::string_view text);

/// resolvePlainScalar converts a plain (unquoted) scalar to the JSON value go-yaml v2 would
/// produce: null, boolean, integer, float or string. Infinity and NaN yield nullopt (JSON has no
/// such numbers).
std::optional<json::Value> resolvePlainScalar(const std::string& text, int line);

}  // namespace ingot::api
