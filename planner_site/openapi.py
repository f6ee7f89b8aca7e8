"""OpenAPI post-processing: say what every operation can answer.

drf-spectacular documents only the success responses a view declares. The API also
answers 400 (invalid input, one message per field), 401/403 (writes without staff
credentials), 404 (unknown ids), 413 (body too large), 415 (a body that is not JSON) and
429 (throttled) on any operation where they can happen; clients and fuzzers need them in
the schema.
"""

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string"},
        "errors": {"type": "object", "additionalProperties": {"type": "string"}},
    },
    "required": ["detail"],
}
_DESCRIPTIONS = {
    "400": "Invalid input: `detail`, and per field in `errors` where a field is at fault.",
    "401": "Authentication required.",
    "403": "Not allowed for these credentials.",
    "404": "No such object or endpoint.",
    "413": "Request body too large.",
    "415": "The request body is not JSON.",
    "429": "Too many requests; see the Retry-After header.",
}
_METHODS = ("get", "post", "put", "patch", "delete")
# django-filter's NumberFilter refuses numbers above 1e50 (django_filters.filters).
NUMBER_FILTER_MAX = 1e50
# Django's form fields refuse the NUL character in text.
NO_NUL_PATTERN = "^[^\\x00]*$"


def _error_response(code: str) -> dict[str, Any]:
    return {
        "description": _DESCRIPTIONS[code],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _codes_for(method: str, operation: dict[str, Any]) -> list[str]:
    codes = ["404"]
    if operation.get("parameters") or operation.get("requestBody"):
        codes.append("400")
    if method != "get":
        codes += ["401", "403", "413", "429"]
    if operation.get("requestBody"):
        codes.append("415")
    return codes


def _query_limits(schema: dict[str, Any]) -> None:
    """What Django refuses in any query value, said in the schema."""
    if schema.get("type") == "number":
        schema["maximum"] = min(schema.get("maximum", NUMBER_FILTER_MAX), NUMBER_FILTER_MAX)
    if schema.get("type") == "string" and "enum" not in schema and "format" not in schema:
        schema.setdefault("pattern", NO_NUL_PATTERN)


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular POSTPROCESSING_HOOKS entry."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path_item in result.get("paths", {}).values():
        for method in _METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            for code in _codes_for(method, operation):
                responses.setdefault(code, _error_response(code))
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "query":
                    # An empty query value means "not given": the default applies.
                    parameter["allowEmptyValue"] = True
                    _query_limits(parameter.get("schema", {}))
            if method == "get" and operation.get("security") and {} not in operation["security"]:
                # Every read of this API is public; credentials are optional there.
                operation["security"].append({})
    return result
