# SPDX-License-Identifier: Apache-2.0
"""ServiceAccount tokens, as a real cluster issues them for Secrets of type
`kubernetes.io/service-account-token`.

Creating such a Secret with the annotation `kubernetes.io/service-account.name` (the
ServiceAccount must exist in the Secret's namespace) fills `data.token`, `data.namespace` and,
over TLS, `data.ca.crt`, and adds the annotation `kubernetes.io/service-account.uid`, which a real
cluster's token controller does a moment after the create. The token is a JWT with the legacy
service-account claims, signed (HS256) with a key made at start.

A bearer token authenticates as `system:serviceaccount:<ns>:<name>` while the signature holds,
the Secret still exists with that very token, and the ServiceAccount still exists with the uid
the token names: deleting either revokes it, as on a real cluster."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from typing import Optional

from .errors import FieldError
from .meta import meta_of
from .rbac import User

TOKEN_TYPE = "kubernetes.io/service-account-token"
NAME_ANNOTATION = "kubernetes.io/service-account.name"
UID_ANNOTATION = "kubernetes.io/service-account.uid"
SECRETS = ("", "secrets")
SERVICE_ACCOUNTS = ("", "serviceaccounts")
_CLAIM = "kubernetes.io/serviceaccount/"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenIssuer:
    """Issues and checks ServiceAccount tokens for one server."""

    def __init__(self):
        self._key = os.urandom(32)
        self.ca_pem: Optional[bytes] = None

    def _sign(self, signing_input: str) -> str:
        return _b64(hmac.new(self._key, signing_input.encode(), hashlib.sha256).digest())

    def issue(self, store, secret: dict) -> None:
        """Fills a new service-account-token Secret (a create hook; changes secret)."""
        meta = meta_of(secret)
        annotations = meta.get("annotations") if isinstance(meta.get("annotations"), dict) \
            else {}
        account = annotations.get(NAME_ANNOTATION)
        if not account:
            raise FieldError(f"metadata.annotations[{NAME_ANNOTATION}]", "FieldValueRequired",
                             "Required value")
        namespace = meta.get("namespace", "")
        sa = store.get(SERVICE_ACCOUNTS, namespace, account)
        if sa is None:
            return  # a real token controller never fills it (and removes the Secret)
        uid = meta_of(sa).get("uid", "")
        claims = {"iss": "kubernetes/serviceaccount", _CLAIM + "namespace": namespace,
                  _CLAIM + "secret.name": meta["name"],
                  _CLAIM + "service-account.name": account,
                  _CLAIM + "service-account.uid": uid,
                  "sub": f"system:serviceaccount:{namespace}:{account}"}
        signing_input = (_b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode()) + "." +
                         _b64(json.dumps(claims, sort_keys=True).encode()))
        token = f"{signing_input}.{self._sign(signing_input)}"
        meta["annotations"] = dict(annotations, **{UID_ANNOTATION: uid})
        data = dict(secret.get("data") or {}, token=base64.b64encode(token.encode()).decode(),
                    namespace=base64.b64encode(namespace.encode()).decode())
        if self.ca_pem:
            data["ca.crt"] = base64.b64encode(self.ca_pem).decode()
        secret["data"] = data

    def authenticate(self, store, token: str) -> Optional[User]:
        """The ServiceAccount user of a valid token, else None."""
        parts = token.split(".")
        if len(parts) != 3 or not hmac.compare_digest(
                self._sign(f"{parts[0]}.{parts[1]}"), parts[2]):
            return None
        try:
            claims = json.loads(_unb64(parts[1]))
        except ValueError:
            return None
        namespace = claims.get(_CLAIM + "namespace", "")
        secret = store.get(SECRETS, namespace, claims.get(_CLAIM + "secret.name", ""))
        account = claims.get(_CLAIM + "service-account.name", "")
        sa = store.get(SERVICE_ACCOUNTS, namespace, account)
        if secret is None or sa is None:
            return None
        stored = (secret.get("data") or {}).get("token", "")
        if stored != base64.b64encode(token.encode()).decode() or \
                meta_of(sa).get("uid") != claims.get(_CLAIM + "service-account.uid"):
            return None
        return User.service_account(namespace, account)
