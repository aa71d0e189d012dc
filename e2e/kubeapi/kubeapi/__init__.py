# SPDX-License-Identifier: Apache-2.0
"""A test Kubernetes API server for Ingot's end-to-end tests (test infrastructure only).

No kube-apiserver can be installed on the lab machines, so this package serves the part of the
Kubernetes REST API that Ingot's controller and agent use, and that `kubectl` needs to work
against it. It is written with the Python 3 standard library plus python3-yaml and
python3-jsonschema, and keeps everything in memory.

A request meets the modules in this order:

* `handler` (HTTP, TLS from `certs`, bearer tokens, fault injection) routes it to `discovery`
  (`/api`, `/apis`, `/version`, OpenAPI v3; `openapi_v2`) or to a resource verb, decoding
  protobuf request bodies with `protobuf`;
* `registry` resolves the resource (built-in kinds and kinds registered from CRDs, the
  preinstalled ones read from the repository's `crds/` and `e2e/kubeapi/crds/`);
* `selectors` parses label and field selectors, `patch` applies merge, JSON and strategic merge
  patches;
* `cluster` gives the API semantics (resourceVersion checks, status subresource, finalizers,
  generation, paging), validates metadata (`objectmeta`) and runs the per-kind `hooks`
  (`services` allocates cluster IPs and node ports, `service_strategy` checks the rest of a
  Service) and the admission chain (`admission`) around each write: a custom resource is pruned
  and validated against its CRD's schema (`validation`, with the CEL rules of `cel`) around
  the defaulting of `defaulting`, then the validating webhooks are called (`webhooks`);
  `deletion` decides what a DELETE marks (Pod grace periods, propagation finalizers, namespace
  termination) and `gc` completes it in the background (garbage collection through
  ownerReferences, namespace cleanup);
  `conversion` converts CRD versions through conversion webhooks; RBAC (`rbac`, `authz`) authorises
  each request of a ServiceAccount token (`authn`);
* `store` keeps the objects, the global resourceVersion and the indexed event history that
  `watch` streams from; `tables` renders `Table` output for kubectl.

`KubeApiServer` (`apiserver`) ties them together; `cli` is the command line of `server.py`.
README.md next to this package lists the deliberate differences from a real API server.
"""

from .admission import (AdmissionPlugin, AdmissionRequest, Attributes, Authorizer,
                        forbidden)
from .apiserver import DEFAULT_NAMESPACES, KubeApiServer
from .certs import CertPaths, generate_certs, kubeconfig_text
from .cli import main, parse_args
from .registry import BUILTIN_CRDS, BUILTIN_RESOURCES, crd_manifest

__all__ = ["AdmissionPlugin", "AdmissionRequest", "Attributes", "Authorizer",
           "BUILTIN_CRDS", "BUILTIN_RESOURCES", "CertPaths", "DEFAULT_NAMESPACES",
           "KubeApiServer", "crd_manifest", "forbidden", "generate_certs",
           "kubeconfig_text", "main", "parse_args"]
