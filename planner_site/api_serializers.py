"""The base of the API's input serializers: a JSON object of the declared fields only, each
of the JSON type it holds.

DRF alone ignores a field it does not declare (a misspelled `vendr` would be dropped and the
post stored without it) and coerces types (`"vendor": 4` becomes "4", `"value": true` 1.0,
`"seen_price_change_id": "8"` 8): both answer 400 here, naming the field, as the simulator's
request parser does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from simulator.engine import EngineInputError, require_known_fields

# The JSON types a field of each class takes (bool is refused where it is not named, though
# Python counts it an int), and how its message says so. The first class that matches wins.
JSON_TYPES: tuple[
    tuple[type[serializers.Field[Any, Any, Any, Any]], tuple[type, ...], str], ...
] = (
    (serializers.BooleanField, (bool,), "true or false"),
    (serializers.IntegerField, (int,), "an integer"),
    (serializers.FloatField, (int, float), "a number"),
    (serializers.CharField, (str,), "a string"),
)


def json_type_name(value: object) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def json_type_error(field: serializers.Field[Any, Any, Any, Any], value: object) -> str | None:
    """Why `value` is not of the JSON type `field` holds; None when it is (or when null,
    which the field itself allows or refuses)."""
    if value is None:
        return None
    for kind, types, expected in JSON_TYPES:
        if isinstance(field, kind):
            if isinstance(value, types) and (bool in types or not isinstance(value, bool)):
                return None
            return f"must be {expected}, got {json_type_name(value)}"
    return None


# An integer as a query string writes it: ASCII digits with an optional sign. DRF's
# IntegerField also reads "70.0", " 70" and other scripts' digits ("٧٠") as 70, which the
# schema's `type: integer` does not allow.
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)


class QueryIntegerField(serializers.IntegerField):
    """An integer query parameter: the digits only, as the schema says (400 otherwise)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not (
            isinstance(data, int) or (isinstance(data, str) and INTEGER_TEXT.fullmatch(data))
        ):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictInputSerializer(serializers.Serializer[Any]):
    """Refuses fields it does not declare and values of the wrong JSON type before DRF reads
    (and coerces) them."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            try:
                require_known_fields(data, frozenset(self.fields), "")
            except EngineInputError as unknown:
                raise ValidationError({unknown.field: [unknown.message]}) from None
            wrong = {
                name: [error]
                for name, field in self.fields.items()
                if name in data and (error := json_type_error(field, data[name])) is not None
            }
            if wrong:
                raise ValidationError(wrong)
        return super().to_internal_value(data)
