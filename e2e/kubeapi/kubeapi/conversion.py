# SPDX-License-Identifier: Apache-2.0
"""CRD version conversion. With `conversion.strategy: None` (or no conversion) every version
shares one storage and only `apiVersion` changes between them. With `strategy: Webhook` the
server does what a real server does, always (apiextensions-apiserver's webhookConverter):

* an object written through a version other than the storage version is converted to the
  storage version before it is stored;
* an object read (get, list, watch, tables, patch base) through another version than the one
  stored is converted to it;

each by a ConversionReview POST to the CRD's `conversion.webhook.clientConfig` (a Service,
reached as admission webhooks are, see webhooks.py, or a URL), in the first of its
`conversionReviewVersions` this server speaks (`v1`, `v1beta1`: the same shape under
apiextensions.k8s.io/<that>). A failed conversion is a 500 `conversion webhook for
<group/version>, Kind=<kind> failed: ...`: a webhook that is unreachable (no Service, no
ready endpoint, no CA bundle yet, a TLS or HTTP failure) fails every conversion, as on a real
cluster. An object already at the wanted version is never sent."""

from __future__ import annotations

import uuid

from .errors import internal_error
from .store import Store
from .webhooks import WebhookCallError, post_json, resolve

_CRDS = ("apiextensions.k8s.io", "customresourcedefinitions")
_REVIEW_VERSIONS = ("v1", "v1beta1")


class Converter:
    """Converts the objects of one CRD between its versions."""

    def __init__(self, store: Store, crd_name: str):
        self.store = store
        self.crd_name = crd_name

    def _webhook(self):
        """(clientConfig, review version) when this CRD converts through a webhook, else None."""
        crd = self.store.get(_CRDS, "", self.crd_name)
        conversion = ((crd or {}).get("spec") or {}).get("conversion") or {}
        if conversion.get("strategy") != "Webhook":
            return None
        webhook = conversion.get("webhook") or {}
        offered = webhook.get("conversionReviewVersions") or []
        spoken = [v for v in offered if v in _REVIEW_VERSIONS]
        if not spoken:
            raise internal_error(f"no conversionReviewVersion this server speaks in {offered}")
        return webhook.get("clientConfig") or {}, spoken[0]

    def storage_version(self) -> str:
        crd = self.store.get(_CRDS, "", self.crd_name) or {}
        spec = crd.get("spec") or {}
        for version in spec.get("versions") or []:
            if version.get("storage"):
                return f"{spec.get('group')}/{version['name']}"
        return ""

    def convert(self, obj: dict, api_version: str, kind: str) -> dict:
        """Returns obj at api_version (obj itself is never changed)."""
        if obj.get("apiVersion") == api_version:
            return obj
        webhook = self._webhook()
        if webhook is None:
            return dict(obj, apiVersion=api_version, kind=kind)
        config, review_version = webhook
        try:
            return self._call(config, review_version, obj, api_version)
        except WebhookCallError as err:
            raise internal_error(f"conversion webhook for {obj.get('apiVersion')}, Kind={kind} "
                                 f"failed: {err}") from None

    def _call(self, config: dict, review_version: str, obj: dict, api_version: str) -> dict:
        uid = str(uuid.uuid4())
        review = {"apiVersion": f"apiextensions.k8s.io/{review_version}",
                  "kind": "ConversionReview",
                  "request": {"uid": uid, "desiredAPIVersion": api_version, "objects": [obj]}}
        url, server_name = resolve(self.store, config)
        answer = post_json(url, server_name, config.get("caBundle", ""), review, 30)
        response = answer.get("response") if isinstance(answer, dict) else None
        if not isinstance(response, dict) or response.get("uid") != uid:
            raise WebhookCallError("the ConversionReview response is missing or for another uid")
        result = response.get("result") or {}
        if result.get("status") != "Success":
            raise WebhookCallError(result.get("message") or "conversion failed")
        converted = response.get("convertedObjects") or []
        if len(converted) != 1 or not isinstance(converted[0], dict) \
                or converted[0].get("apiVersion") != api_version:
            raise WebhookCallError(f"expected 1 object converted to {api_version}")
        return converted[0]


def storage_form(converter, obj: dict, res) -> dict:
    """obj (written through res's version) as it is stored: converted to the storage version
    when the CRD converts through a webhook; unchanged otherwise."""
    if converter is None or converter._webhook() is None:  # noqa: SLF001
        return obj
    target = converter.storage_version()
    return converter.convert(dict(obj, apiVersion=res.group_version), target, res.kind)

