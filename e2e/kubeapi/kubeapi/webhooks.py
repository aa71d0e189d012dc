# SPDX-License-Identifier: Apache-2.0
"""Validating admission webhooks: every ValidatingWebhookConfiguration (admissionregistration
.k8s.io/v1) stored is honoured on every write, as a real API server does after schema
validation:

* a webhook is called when one of its `rules` matches (operations, apiGroups, apiVersions,
  resources with `*`, `*/*`, `x/status`, and scope) or, under `matchPolicy: Equivalent` (the
  default), when a rule matches another served version of the same resource: the objects are
  then converted to that version (through the CRD's conversion webhook) and sent as it, with
  `requestKind`/`requestResource` naming the version the client wrote; its `namespaceSelector` matches the
  namespace's labels (a cluster-scoped object always matches, a Namespace is matched by its own
  labels) and its `objectSelector` matches the labels of the new or the old object;
* the call is an AdmissionReview v1 POST over HTTPS to `clientConfig.url`, or to a Service
  (`clientConfig.service`, port 443 by default), reached through its EndpointSlices (or
  Endpoints) and verified against `caBundle` as `<name>.<namespace>.svc`, bounded by
  `timeoutSeconds` (default 10);
* a denial is the real server's error: `admission webhook "<name>" denied the request:
  <message>` with the code the webhook gave (at least 400); its `warnings` become Warning
  headers; a call that fails is a 500 `failed calling webhook` under `failurePolicy: Fail` (the
  default) and is skipped under `Ignore`.

The store lock is released during a call, so a webhook may read from this server (MetalLB's
list the existing objects). The write then goes on only if the object it was about is still the
same; otherwise the client gets a 409 Conflict, as with a stale resourceVersion."""

from __future__ import annotations

import base64
import http.client
import json
import ssl
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager
from typing import Any, Optional

from .admission import AdmissionPlugin, AdmissionRequest, warn
from .errors import ApiError, FieldError, conflict, internal_error
from .meta import meta_of
from .registry import Registry, Resource
from .store import Store

_CONFIGS = ("admissionregistration.k8s.io", "validatingwebhookconfigurations")
_OPTIONS = {"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}


def selector_matches(selector: Optional[dict], labels: dict) -> bool:
    """metav1.LabelSelector semantics; a missing or empty selector matches everything."""
    selector = selector or {}
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        present = key in labels
        if (op == "In" and (not present or labels[key] not in values)) \
                or (op == "NotIn" and present and labels[key] in values) \
                or (op == "Exists" and not present) or (op == "DoesNotExist" and present):
            return False
    return True


def _listed(values: list, value: str) -> bool:
    return "*" in values or value in values


def _resource_listed(patterns: list, plural: str, sub: str) -> bool:
    for pattern in patterns:
        main, _, pattern_sub = pattern.partition("/")
        if sub:
            if pattern_sub and (main in ("*", plural)) and pattern_sub in ("*", sub):
                return True
        elif not pattern_sub and main in ("*", plural):
            return True
    return False


def rule_matches(rule: dict, request: AdmissionRequest, res: Optional[Resource] = None) -> bool:
    """rules.Matcher.Matches (k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules):
    whether rule covers request, taken as a request for res (default: its own resource)."""
    res = res or request.res
    scope = rule.get("scope", "*")
    if scope != "*" and scope != ("Namespaced" if res.namespaced else "Cluster"):
        return False
    return (_listed(rule.get("operations") or [], request.operation)
            and _listed(rule.get("apiGroups") or [], res.group)
            and _listed(rule.get("apiVersions") or [], res.version)
            and _resource_listed(rule.get("resources") or [], res.plural, request.sub))


def invocation(hook: dict, request: AdmissionRequest, equivalents: list) -> Optional[Resource]:
    """The resource a webhook is called for, or None: the rule part of ShouldCallHook
    (k8s.io/apiserver/pkg/admission/plugin/webhook/generic/webhook.go). A rule matching the
    request's own resource wins; else, under matchPolicy Equivalent, the first rule (in order)
    matching one of the equivalent resources (the other served versions of the same group and
    resource, EquivalentResourceMapper.EquivalentResourcesFor) names the version called."""
    rules = hook.get("rules") or []
    if any(rule_matches(rule, request) for rule in rules):
        return request.res
    if hook.get("matchPolicy", "Equivalent") != "Equivalent":
        return None
    own = (request.res.group, request.res.version, request.res.plural)
    for rule in rules:
        for other in equivalents:
            if (other.group, other.version, other.plural) != own \
                    and rule_matches(rule, request, other):
                return other
    return None


def _labels(obj: Optional[dict]) -> dict:
    return (meta_of(obj).get("labels") or {}) if obj else {}


def default_configuration(obj: dict) -> None:
    """SetDefaults_ValidatingWebhook and SetDefaults_Rule (k8s.io/kubernetes
    pkg/apis/admissionregistration/v1/defaults.go), in place."""
    for hook in obj.get("webhooks") or []:
        if not isinstance(hook, dict):
            continue
        for field, value in (("failurePolicy", "Fail"), ("matchPolicy", "Equivalent"),
                             ("namespaceSelector", {}), ("objectSelector", {}),
                             ("timeoutSeconds", 10)):
            hook.setdefault(field, value)
        for rule in hook.get("rules") or []:
            if isinstance(rule, dict):
                rule.setdefault("scope", "*")


def validate_configuration(obj: dict) -> None:
    """The checks a real server makes on a ValidatingWebhookConfiguration it stores."""
    for index, hook in enumerate(obj.get("webhooks") or []):
        path = f"webhooks[{index}]"
        if not hook.get("name"):
            raise FieldError(f"{path}.name", "FieldValueRequired", "Required value")
        if hook.get("sideEffects") not in ("None", "NoneOnDryRun"):
            raise FieldError(f"{path}.sideEffects", "FieldValueNotSupported",
                             f"Unsupported value: {json.dumps(hook.get('sideEffects'))}: "
                             'supported values: "None", "NoneOnDryRun"')
        if "v1" not in (hook.get("admissionReviewVersions") or []):
            raise FieldError(f"{path}.admissionReviewVersions", "FieldValueInvalid",
                             "Invalid value: must include at least one of v1")
        if hook.get("matchPolicy", "Equivalent") not in ("Exact", "Equivalent"):
            raise FieldError(f"{path}.matchPolicy", "FieldValueNotSupported",
                             f"Unsupported value: {json.dumps(hook.get('matchPolicy'))}: "
                             'supported values: "Equivalent", "Exact"')
        config = hook.get("clientConfig") or {}
        if ("url" in config) == ("service" in config):
            raise FieldError(f"{path}.clientConfig", "FieldValueRequired",
                             "Required value: exactly one of url or service is required")
        timeout = hook.get("timeoutSeconds", 10)
        if not isinstance(timeout, int) or not 1 <= timeout <= 30:
            raise FieldError(f"{path}.timeoutSeconds", "FieldValueInvalid",
                             f"Invalid value: {timeout}: the timeout value must be between 1 "
                             "and 30 seconds")


@contextmanager
def _unlocked(store: Store):
    """Releases the store lock (however often this thread holds it) for the duration, the way
    Condition.wait() does."""
    saved = store.cond._release_save()  # noqa: SLF001 - the documented wait() mechanism
    try:
        yield
    finally:
        store.cond._acquire_restore(saved)  # noqa: SLF001


class WebhookCallError(Exception):
    """A webhook could not be called or gave an unusable answer."""


def _service_target(store: Store, service_ref: dict) -> tuple:
    """(address, port) of a ready endpoint behind a Service port, as kube-proxy would pick."""
    namespace, name = service_ref.get("namespace", ""), service_ref.get("name", "")
    service = store.get(("", "services"), namespace, name)
    if service is None:
        raise WebhookCallError(f'service "{name}" not found')
    wanted = service_ref.get("port", 443)
    ports = [p for p in (service.get("spec") or {}).get("ports") or [] if p.get("port") == wanted]
    if not ports:
        raise WebhookCallError(f'service "{name}" has no port {wanted}')
    port_name, target = ports[0].get("name", ""), ports[0].get("targetPort", wanted)
    for endpoint_slice in store.list(("discovery.k8s.io", "endpointslices"), namespace):
        if _labels(endpoint_slice).get("kubernetes.io/service-name") != name:
            continue
        slice_ports = [p for p in endpoint_slice.get("ports") or []
                       if p.get("name", "") == port_name]
        port = slice_ports[0].get("port", target) if slice_ports else target
        for endpoint in endpoint_slice.get("endpoints") or []:
            if (endpoint.get("conditions") or {}).get("ready", True) and endpoint.get("addresses"):
                return endpoint["addresses"][0], port
    endpoints = store.get(("", "endpoints"), namespace, name) or {}
    for subset in endpoints.get("subsets") or []:
        subset_ports = [p for p in subset.get("ports") or [] if p.get("name", "") == port_name]
        if subset.get("addresses") and subset_ports:
            return subset["addresses"][0]["ip"], subset_ports[0]["port"]
    raise WebhookCallError(f'no endpoints available for service "{name}"')


def _host(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def resolve(store: Store, config: dict) -> tuple:
    """(URL to POST to, TLS server name) of a webhook clientConfig."""
    if "url" in config:
        url = config["url"]
        return url, urllib.request.urlparse(url).hostname
    ref = config["service"]
    address, port = _service_target(store, ref)
    path = ref.get("path", "/")
    return (f"https://{_host(address)}:{port}{path}",
            f"{ref.get('name')}.{ref.get('namespace')}.svc")


def post_json(url: str, server_name: str, ca_bundle: str, body: dict, timeout: int) -> dict:
    """POSTs body over HTTPS (verified against the base64 PEM ca_bundle, or the system CAs
    when empty) and returns the JSON answer."""
    context = ssl.create_default_context()
    if ca_bundle:
        context = ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode())
    parsed = urllib.request.urlparse(url)
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json"}, method="POST")
    handler = _SniHandler(context, server_name if server_name != parsed.hostname else None)
    try:
        with urllib.request.build_opener(handler).open(request, timeout=timeout) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError) as err:
        raise WebhookCallError(str(getattr(err, "reason", err))) from None


class _SniHandler(urllib.request.HTTPSHandler):
    """Connects to the URL's address but verifies the certificate for server_name (a Service's
    DNS name), as the API server does when it dials a Service's endpoint."""

    def __init__(self, context: ssl.SSLContext, server_name: Optional[str]):
        super().__init__(context=context)
        self.server_name = server_name
        self.context = context

    def https_open(self, req):
        server_name, context = self.server_name, self.context
        if server_name is None:
            return super().https_open(req)

        class Connection(http.client.HTTPSConnection):
            def connect(self):
                http.client.HTTPConnection.connect(self)
                self.sock = context.wrap_socket(self.sock, server_hostname=server_name)

        return self.do_open(Connection, req)


def _kind(res: Resource) -> dict:
    return {"group": res.group, "version": res.version, "kind": res.kind}


def _resource(res: Resource) -> dict:
    return {"group": res.group, "version": res.version, "resource": res.plural}


def versioned(request: AdmissionRequest, target: Resource) -> tuple:
    """(object, oldObject) at target's version, as the dispatcher converts the versioned
    attributes to the invocation's kind (generic.ConvertToGVK, through the CRD's conversion
    webhook for a custom resource). request.obj holds the request's version whatever its
    apiVersion says; request.old is the stored object."""
    res = request.res
    obj = dict(request.obj, apiVersion=res.group_version) if request.obj is not None else None
    old = request.old
    if res.converter is None:
        return tuple(None if o is None else dict(o, apiVersion=target.group_version)
                     for o in (obj, old))
    return tuple(None if o is None else res.converter.convert(o, target.group_version, res.kind)
                 for o in (obj, old))


def review(request: AdmissionRequest, target: Optional[Resource] = None,
           objects: Optional[tuple] = None) -> dict:
    """The AdmissionReview v1 request a real server sends for this write to a webhook called
    for target (CreateV1AdmissionReview: kind/resource are the invocation's, requestKind/
    requestResource the request's); objects are (object, oldObject) at target's version."""
    res = request.res
    target = target or res
    obj, old = objects if objects is not None else (request.obj, request.old)
    body = {"uid": str(uuid.uuid4()), "kind": _kind(target), "resource": _resource(target),
            "requestKind": _kind(res), "requestResource": _resource(res), "name": request.name,
            "operation": request.operation,
            "userInfo": {"username": "kubeapi-test-admin",
                         "groups": ["system:masters", "system:authenticated"]},
            "object": obj if request.operation != "DELETE" else None,
            "oldObject": old if request.operation != "CREATE" else None,
            "dryRun": request.dry_run,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": _OPTIONS[request.operation]}}
    if request.sub:
        body["subResource"] = request.sub
    if res.namespaced:
        body["namespace"] = request.namespace
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": body}


def denial(name: str, result: Optional[dict]) -> ApiError:
    """What the client gets when a webhook refuses (apiserver's webhookerrors.ToStatusErr)."""
    result = dict(result or {})
    denied_by = f'admission webhook "{name}" denied the request'
    if result.get("message"):
        message = f"{denied_by}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied_by}: {result['reason']}"
    else:
        message = f"{denied_by} without explanation"
    code = result.get("code") or 0
    return ApiError(max(code, 400), result.get("reason", ""), message, result.get("details"))


class ValidatingWebhooks(AdmissionPlugin):
    """Calls the matching validating webhooks of every stored configuration (the last
    admission plugin). `calls` counts the calls made, for tests."""

    def __init__(self, store: Store, registry: Optional[Registry] = None):
        self.store = store
        self.registry = registry
        self.calls = 0

    def admit(self, request: AdmissionRequest) -> None:
        if request.res.key == _CONFIGS and request.operation != "DELETE":
            default_configuration(request.obj)
            validate_configuration(request.obj)
        equivalents = [r for r in self.registry.all() if r.key == request.res.key] \
            if self.registry is not None else []
        calls = []
        for config in self.store.list(_CONFIGS):
            for hook in config.get("webhooks") or []:
                target = invocation(hook, request, equivalents)
                if target is not None and self._selected(hook, request):
                    calls.append((hook, target))
        if not calls:
            return
        # Conversions happen before the lock is released, as the objects are the request's.
        versions: dict = {}
        sent = []
        for hook, target in calls:
            if target.version not in versions:
                versions[target.version] = versioned(request, target)
            sent.append((hook, review(request, target, versions[target.version])))
        before = self._current(request)
        with _unlocked(self.store):
            for hook, body in sent:
                self._call(hook, body)
        if self._current(request) != before:
            raise conflict(request.res, request.name)

    def _current(self, request: AdmissionRequest) -> Any:
        stored = self.store.get(request.res.key, request.namespace if request.res.namespaced
                                else "", request.name)
        return meta_of(stored).get("resourceVersion") if stored else None

    def _selected(self, hook: dict, request: AdmissionRequest) -> bool:
        """The namespaceSelector and objectSelector part of ShouldCallHook."""
        if request.res.namespaced:
            namespace = self.store.get(("", "namespaces"), "", request.namespace)
            if not selector_matches(hook.get("namespaceSelector"), _labels(namespace)):
                return False
        elif request.res.key == ("", "namespaces"):
            if not selector_matches(hook.get("namespaceSelector"),
                                    _labels(request.obj or request.old)):
                return False
        selector = hook.get("objectSelector")
        return (selector_matches(selector, _labels(request.obj))
                or (request.old is not None and selector_matches(selector, _labels(request.old))))

    def _call(self, hook: dict, sent: dict) -> None:
        name, timeout = hook["name"], hook.get("timeoutSeconds", 10)
        config = hook.get("clientConfig") or {}
        try:
            url, server_name = resolve(self.store, config)
        except WebhookCallError as err:
            url, server_name = None, str(err)
        try:
            if url is None:
                raise WebhookCallError(server_name)
            self.calls += 1
            answer = post_json(f"{url}?timeout={timeout}s", server_name,
                               config.get("caBundle", ""), sent, timeout)
            response = self._response(answer, sent["request"]["uid"])
        except WebhookCallError as err:
            if hook.get("failurePolicy", "Fail") == "Ignore":
                return
            where = f'Post "{url}?timeout={timeout}s": ' if url else ""
            raise internal_error(f'failed calling webhook "{name}": failed to call webhook: '
                                 f"{where}{err}") from None
        for text in response.get("warnings") or []:
            warn(text)
        if not response.get("allowed"):
            raise denial(name, response.get("status"))

    @staticmethod
    def _response(answer: Any, uid: str) -> dict:
        if not isinstance(answer, dict) or answer.get("kind") != "AdmissionReview" \
                or answer.get("apiVersion") != "admission.k8s.io/v1":
            raise WebhookCallError("expected webhook response of admission.k8s.io/v1, Kind="
                                   "AdmissionReview")
        response = answer.get("response")
        if not isinstance(response, dict):
            raise WebhookCallError("webhook response was absent")
        if response.get("uid") != uid:
            raise WebhookCallError(f"expected response.uid={uid!r}, got "
                                   f"{response.get('uid')!r}")
        return response
