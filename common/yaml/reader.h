// SPDX-License-Identifier: Apache-2.0
// The one YAML reader of Ingot (library ingot_yaml, the only code that includes yaml-cpp): YAML
// text -> json::Value trees whose nodes carry their 1-based source line. Anchors and aliases are
// expanded. Bounded: nesting deeper than json::kMaxDepth and alias expansion beyond a budget
// proportional to the input are errors, never crashes or hangs.
//
// Scalars are read one of two ways (Scalars):
// - Json, for Kubernetes manifests: resolved the way sigs.k8s.io/yaml (go-yaml v2, YAML 1.1
//   scalars) turns YAML into JSON: plain `123` is a number and `true`/`yes`/`on` a boolean, while
//   quoted "123" stays a string; merge keys (`<<`) are applied; invalid UTF-8 is an error.
// - Text, for files whose fields are all strings (kubeconfig, the L2 interface exclude list):
//   every scalar is a string exactly as written (`0755`, `yes`, `true`, base64 data), as
//   client-go reads a string field; only a plain empty, `~`, `null`, `Null` or `NULL` scalar is
//   null; `<<` is an ordinary key.
// Duplicate keys are all kept in order (json::Value::find returns the first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json/value.h"
#include "common/util/result.h"

namespace ingot::yaml {

/// Scalars chooses how scalars become values (see the file comment).
enum class Scalars : uint8_t { Json, Text };

/// Document is one document of a stream; line is where its content starts (1-based).
struct Document {
  json::Value root;  ///< null for an empty document
  int line = 0;
};

/// ParseError says where parsing stopped and why.
struct ParseError {
  int line = 0;
  std::string message;
};

/// Stream is the result of parsing: the documents before the first error, and that error.
struct Stream {
  std::vector<Document> documents;
  std::optional<ParseError> error;
};

/// parseStream parses every document of text. It never throws.
Stream parseStream(std::string_view text, Scalars scalars = Scalars::Json);

/// parseFirstDocument parses the first document of text and ignores the rest; empty text is
/// null. The error message is "line N: reason". It never throws.
Result<json::Value> parseFirstDocument(std::string_view text, Scalars scalars);

/// resolvePlainScalar converts a plain (unquoted) scalar to the JSON value go-yaml v2 would
/// produce: null, boolean, integer, float or string. Infinity and NaN yield nullopt (JSON has no
/// such numbers).
std::optional<json::Value> resolvePlainScalar(const std::string& text, int line);

}  // namespace ingot::yaml
