// SPDX-License-Identifier: Apache-2.0
// Loading Kubernetes manifests (YAML or JSON, one or many documents, `kind: List`) into typed
// objects with file:line positions. Everything that can go wrong with the input becomes a
// ManifestProblem; nothing throws, crashes or hangs, whatever the bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"

namespace ingot::api {

/// SourcePos is a place in an input: file name and 1-based line (0 = unknown).
struct SourcePos {
  std::string file;
  int line = 0;
  friend bool operator==(const SourcePos&, const SourcePos&) = default;
};

/// ManifestObject is one decoded object; pos is the line the object starts on.
struct ManifestObject {
  std::string api_version;
  std::string kind;
  SourcePos pos;
  AnyObject object;
  const ObjectMeta& meta() const { return metaOf(object); }
  ObjectMeta& meta() { return metaOf(object); }
};

/// ManifestProblem is one error: where (pos.line is the offending field's line when known, else
/// the object's), which object (kind/namespace/name when known), which field (JSON path) and why.
struct ManifestProblem {
  SourcePos pos;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string field;
  std::string message;
};

/// ManifestSet is everything loaded: objects in input order, problems, and notes (things skipped
/// on purpose, e.g. "FILE:LINE: skipping unknown kind apps/v1 Deployment").
struct ManifestSet {
  std::vector<ManifestObject> objects;
  std::vector<ManifestProblem> problems;
  std::vector<std::string> notes;
};

/// loadManifestText loads YAML (multi-document, anchors/aliases/merge keys, comments) or JSON
/// text. `kind: List` and `<Kind>List` objects are expanded into their items. Objects of unknown
/// kinds are skipped with a note, except in the metallb.io group, where an unknown kind or
/// version is a problem. Each decoded object is also checked with validateObject
/// (api/validate.h); an object with validation problems is still returned, one that failed to
/// decode is not. Unknown fields are problems for metallb.io / frrk8s kinds and ignored for core
/// kinds. A YAML syntax error stops the file there: the documents before it are kept.
ManifestSet loadManifestText(std::string_view text, const std::string& file_name);

/// kMaxManifestBytes is the largest file or stdin input loadManifestPaths reads (64 MiB).
inline constexpr size_t kMaxManifestBytes = size_t{64} << 20;

/// loadManifestPaths loads files, or directories searched recursively for *.yaml, *.yml and
/// *.json (in sorted path order); "-" reads standard input as "<stdin>". A path that cannot be
/// read, or is larger than kMaxManifestBytes, is a problem naming it.
ManifestSet loadManifestPaths(const std::vector<std::string>& paths);

/// append moves the contents of more to the end of set.
void append(ManifestSet& set, ManifestSet&& more);

}  // namespace ingot::api
