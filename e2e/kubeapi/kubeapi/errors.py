# SPDX-License-Identifier: Apache-2.0
"""Failures as Kubernetes `Status` objects: the error type every layer raises and the
constructors that word each reason as the real API server does."""

from __future__ import annotations

from typing import Optional, TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import Resource



CONFLICT_MODIFIED = (
    "the object has been modified; please apply your changes to the latest version and try again"
)
CONTINUE_TOO_OLD = (
    "The provided continue parameter is too old to display a consistent list result. You can "
    "start a new list without the continue parameter, or use the continue token in this response "
    "to retrieve the remainder of the results. Continuing with the provided token results in an "
    "inconsistent list - objects that were created, modified, or deleted between the time the "
    "first chunk was returned and now may show up in the list."
)


class ApiError(Exception):
    """A request failure, rendered as a `Status` with the HTTP code, reason and details."""

    def __init__(self, code: int, reason: str, message: str, details=None, list_meta=None):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details
        self.list_meta = list_meta or {}

    def status(self) -> dict:
        """Returns the Status object the real API server would send for this error."""
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": dict(self.list_meta),
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if self.details:
            status["details"] = self.details
        return status


def error_details(res: "Resource", name: str, kind: Optional[str] = None) -> dict:
    details = {"name": name}
    if res.group:
        details["group"] = res.group
    details["kind"] = kind or res.plural
    return details


def not_found(res: "Resource", name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{res.qualified} "{name}" not found',
                    error_details(res, name))


def namespace_not_found(namespace: str) -> ApiError:
    details = {"name": namespace, "kind": "namespaces"}
    return ApiError(404, "NotFound", f'namespaces "{namespace}" not found', details)


def already_exists(res: "Resource", name: str) -> ApiError:
    message = f'{res.qualified} "{name}" already exists'
    return ApiError(409, "AlreadyExists", message, error_details(res, name))


def conflict(res: "Resource", name: str, why: str = CONFLICT_MODIFIED) -> ApiError:
    message = f'Operation cannot be fulfilled on {res.qualified} "{name}": {why}'
    return ApiError(409, "Conflict", message, error_details(res, name))


def invalid(res: "Resource", name: str, causes: list) -> ApiError:
    """Builds a 422 Invalid error from (field, reason, message) causes, like field.ErrorList.
    The kind is qualified by its group (`IPAddressPool.metallb.io "p" is invalid: ...`) as
    errors.NewInvalid does; core kinds have none."""
    texts = [f"{field}: {message}" for field, _, message in causes]
    summary = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    details = error_details(res, name, kind=res.kind)
    details["causes"] = [{"reason": r, "message": m, "field": f} for f, r, m in causes]
    kind = f"{res.kind}.{res.group}" if res.group else res.kind
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {summary}', details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def expired(message: str, list_meta=None) -> ApiError:
    return ApiError(410, "Expired", message, list_meta=list_meta)


def too_old_resource_version(rv: int, oldest: int) -> ApiError:
    return expired(f"too old resource version: {rv} ({oldest})")


def too_large_resource_version(rv: int, current: int) -> ApiError:
    details = {"causes": [{"reason": "ResourceVersionTooLarge",
                           "message": "Too large resource version"}], "retryAfterSeconds": 1}
    return ApiError(504, "Timeout", f"Too large resource version: {rv}, current: {current}",
                    details)


def internal_error(message: str) -> ApiError:
    details = {"causes": [{"message": message}]}
    return ApiError(500, "InternalError", f"Internal error occurred: {message}", details)


def resource_not_found() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource")


def method_not_allowed() -> ApiError:
    message = "the server does not allow this method on the requested resource"
    return ApiError(405, "MethodNotAllowed", message)


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


class FieldError(Exception):
    """A validation failure of one field (or several, see invalid_many); turned into a 422
    Invalid by the caller."""

    def __init__(self, field: str, reason: str, message: str):
        super().__init__(message)
        self.cause = (field, reason, message)
        self.causes = [self.cause]


def invalid_many(causes: list) -> FieldError:
    """A FieldError carrying several (field, reason, message) causes, all reported at once."""
    error = FieldError(*causes[0])
    error.causes = list(causes)
    return error
