// SPDX-License-Identifier: Apache-2.0
// Workspace: manifest files turned into what the daemons would see — decoded objects, field and
// namespace checks, and the parsed Config — with every problem tied to a file and line.
#pragma once

#include <string>
#include <vector>

#include "api/manifest.h"
#include "config/config.h"

namespace ingot::cli {

/// Problem is one line of `ingotctl validate` output.
struct Problem {
  api::SourcePos pos;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string field;
  std::string message;
  bool transient = false;
};

struct WorkspaceOptions {
  std::string metallb_namespace = "metallb-system";
  config::Backend backend = config::Backend::FrrK8s;
};

struct Workspace {
  std::vector<api::ManifestObject> objects;  ///< decoded, namespaces defaulted
  std::vector<Problem> problems;             ///< sorted by file, line
  std::vector<std::string> notes;            ///< e.g. skipped unknown kinds
  std::vector<Problem> warnings;  ///< admission warnings (api::objectWarnings); not problems
  config::Inputs inputs;          ///< metallb.io objects of the MetalLB namespace + cluster objects
  std::vector<api::Service> services;
  std::vector<api::EndpointSlice> endpoint_slices;
  config::ParseOutcome parsed;  ///< config is set iff the configuration is valid
};

/// loadWorkspace reads the paths (files, directories, "-") and runs, in order: manifest decoding,
/// namespace defaulting (MetalLB kinds and Secrets without a namespace go to the MetalLB
/// namespace; Services and EndpointSlices to "default", as kubectl would), the webhook namespace
/// rule for MetalLB kinds, per-object field validation, and the cross-object config parser.
Workspace loadWorkspace(const std::vector<std::string>& paths, const WorkspaceOptions& options);

/// loadWorkspaceSet is loadWorkspace on objects already loaded (e.g. read from a cluster).
Workspace loadWorkspaceSet(api::ManifestSet set, const WorkspaceOptions& options);

/// formatProblem renders "FILE:LINE: Kind namespace/name: field: message" (parts that are empty
/// are left out).
std::string formatProblem(const Problem& p);

/// parseBackend maps "frr-k8s" or "frr" to a Backend; "native" is refused (no native speaker).
Result<config::Backend> parseBackend(const std::string& name);

}  // namespace ingot::cli
