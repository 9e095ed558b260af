"""A pydantic base for JSON documents that must round-trip without loss.

Groundtruth files are written by other tools; gtreview must write back exactly
what it read. So models keep unknown keys (``extra="allow"``), never invent keys
that were absent (dump with ``exclude_unset``), never coerce values (``strict``),
and remember the key order of the object they were read from.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)


class JsonModel(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True, strict=True)

    _key_order: tuple[str, ...] = PrivateAttr(default=())

    @model_validator(mode="wrap")
    @classmethod
    def _remember_key_order(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Self:
        obj = handler(data)
        if isinstance(data, dict):
            obj._key_order = tuple(data)
        return obj  # type: ignore[no-any-return]

    @model_serializer(mode="wrap")
    def _ordered(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not self._key_order or not isinstance(data, dict):
            return data
        ordered = {key: data[key] for key in self._key_order if key in data}
        ordered.update((key, value) for key, value in data.items() if key not in ordered)
        return ordered

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object this model stands for: only keys that were read or set."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)

    def content_hash(self) -> str:
        return canonical_hash(self.to_json_dict())


def canonical_json(value: Any) -> str:
    """Key-sorted compact JSON, the input of every content hash in the project."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_hash(value: Any) -> str:
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
