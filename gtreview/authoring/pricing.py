"""Token accounting and cost per drafting stage.

Drafting a set with a large hosted model costs real money, and the expert deciding
whether to redraft needs to see what each stage cost. Prices are list prices in USD
per million input and output tokens, matched against the backend's model name (or its
spec) with shell-style patterns; they are configurable because price lists change. A
model nobody priced costs ``"unknown"``, never a guessed number. Local GGUF models
cost nothing per token.

The figure is an estimate at list price: prompt-cache reads are billed below the
input price and cache writes slightly above it, and the backends report only total
prompt tokens.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gtreview.core.errors import UserError
from gtreview.core.jsonformat import loads_json
from gtreview.inference.backend import CompletionResult
from gtreview.inputs import MAX_SMALL_FILE_BYTES, InputReadError, read_limited

Unknown = Literal["unknown"]


class ModelPrice(BaseModel):
    model_config = ConfigDict(frozen=True)

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


# List prices (USD per million tokens) when this table was written; override with
# a JSON file ({"PATTERN": {"input_per_mtok": N, "output_per_mtok": N}}) when they change.
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-opus-4-1*": ModelPrice(input_per_mtok=15.0, output_per_mtok=75.0),
    "claude-opus-4-0*": ModelPrice(input_per_mtok=15.0, output_per_mtok=75.0),
    "claude-opus-4-2025*": ModelPrice(input_per_mtok=15.0, output_per_mtok=75.0),
    "claude-opus-4*": ModelPrice(input_per_mtok=5.0, output_per_mtok=25.0),
    "claude-sonnet-4*": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
    "claude-3-7-sonnet*": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
    "claude-haiku-4*": ModelPrice(input_per_mtok=1.0, output_per_mtok=5.0),
    "claude-3-5-haiku*": ModelPrice(input_per_mtok=0.8, output_per_mtok=4.0),
    "llama:*": ModelPrice(input_per_mtok=0.0, output_per_mtok=0.0),
    "hf:*": ModelPrice(input_per_mtok=0.0, output_per_mtok=0.0),
}


class PriceTableError(UserError, ValueError):
    """A price file that cannot be read (one-line message)."""


class PriceTable(BaseModel):
    """Patterns to prices; the first pattern (in order) that matches wins."""

    model_config = ConfigDict(frozen=True)

    prices: dict[str, ModelPrice] = Field(default_factory=lambda: dict(DEFAULT_PRICES))

    def price_for(self, names: Iterable[str]) -> ModelPrice | None:
        """The price of the first name that any pattern matches (model name before spec)."""
        for name in names:
            for pattern, price in self.prices.items():
                if fnmatch.fnmatchcase(name, pattern):
                    return price
        return None

    def cost(self, names: Iterable[str], prompt_tokens: int, completion_tokens: int) -> float | Unknown:
        price = self.price_for(names)
        if price is None:
            return "unknown"
        return round((prompt_tokens * price.input_per_mtok + completion_tokens * price.output_per_mtok) / 1e6, 6)


def load_price_table(path: Path, *, extend_defaults: bool = True) -> PriceTable:
    """Prices from a JSON file; its patterns are tried before the defaults unless told not to."""
    try:
        raw = loads_json(read_limited(path, MAX_SMALL_FILE_BYTES))
        if not isinstance(raw, dict):
            raise PriceTableError(f"{path}: expected a JSON object of pattern -> price")
        loaded = {str(k): ModelPrice.model_validate(v) for k, v in raw.items()}
    except InputReadError as exc:
        raise PriceTableError(str(exc)) from None
    except UnicodeDecodeError:
        raise PriceTableError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise PriceTableError(f"{path}: not valid JSON ({exc.msg})") from None
    except ValidationError as exc:
        raise PriceTableError(f"{path}: bad price entry ({exc.errors()[0]['msg']})") from None
    return PriceTable(prices={**loaded, **DEFAULT_PRICES} if extend_defaults else loaded)


def model_names(spec: str, description: Mapping[str, Any]) -> list[str]:
    """Names to price a backend by: its model name, then its spec string."""
    names = [str(description["model"])] if description.get("model") else []
    return [*names, spec]


class StageUsage(BaseModel):
    """Tokens and estimated cost of one drafting stage (every attempt counted)."""

    stage: str
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    uncounted_requests: int = 0  # replies that reported no token counts (errors, some servers)
    cost_usd: float | Unknown = 0.0

    def add(self, result: CompletionResult) -> None:
        self.requests += 1
        if result.prompt_tokens is None and result.completion_tokens is None:
            self.uncounted_requests += 1
        self.prompt_tokens += result.prompt_tokens or 0
        self.completion_tokens += result.completion_tokens or 0

    def priced(self, table: PriceTable, names: Iterable[str]) -> StageUsage:
        return self.model_copy(update={"cost_usd": table.cost(names, self.prompt_tokens, self.completion_tokens)})


def total_cost(usages: Iterable[StageUsage]) -> float | Unknown:
    """The sum over stages; unknown if any stage's cost is unknown."""
    total = 0.0
    for usage in usages:
        if usage.cost_usd == "unknown":
            return "unknown"
        total += usage.cost_usd
    return round(total, 6)
