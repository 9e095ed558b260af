"""The one redaction step for every text that leaves a backend: errors, replies, logs,
reports and exports.

Two kinds of secret are removed. The secrets in play, known by value: the API keys in
the environment variables below and every key or URL password a backend registered when
it opened, replaced wherever they appear, however a server wrapped them. And credentials
of a known shape, replaced even when nobody registered them: ``sk-...`` keys, bearer
tokens, basic auth (``Basic`` and the base64 of ``user:password``), ``api-key=...``
style pairs and the password of a ``scheme://user:password@host`` URL. A server that
quotes the header it rejected, or a proxy that dumps the request it forwarded, then
leaks nothing into the project, the report or the log.

The shapes are matched tightly so that ordinary prose (a model's answer about the bearer
of a claim, basic volcanic rocks) is never touched: a bearer token must look like a
token, a basic credential must decode to ``user:password``. Pure text in, text out; the
registry is process-wide because a key opened by one backend must be masked in the log
lines of every module.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import threading
from typing import TypeVar, cast
from urllib.parse import unquote

MASK = "***"

SECRET_ENV_VARS = (
    "GTREVIEW_OPENAI_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
)
"""Environment variables whose values are credentials, whether or not a backend used them."""

MIN_ANYWHERE = 8
"""A known secret at least this long is replaced wherever it appears, even inside a word."""
MIN_SECRET = 4
"""A shorter known secret is replaced only as a whole word (a password ``pass`` must not eat
``passes``); one shorter than this is left to the shapes (URL, Basic) that carry it."""

_BEARER = re.compile(r"(?i)\b(bearer)(\s+)([A-Za-z0-9\-._~+/]{8,}=*)")
_BASIC = re.compile(r"(?i)\b(basic)(\s+)([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])")
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{12,}")
_KEY_VALUE = re.compile(
    r"(?i)\b((?:x-)?api[-_]?key|access[-_]?token|auth[-_]?token|token|secret[-_]?key|password|passwd)"
    r"([\"']?\s*[:=]\s*[\"']?)([^\s\"'&,;<>#]{4,})"  # '#' ends a URL's query: a spec's #model stays
)
# The password runs to the LAST @ before the path, so an unencoded @ in it is covered.
_URL_PASSWORD = re.compile(r"\b([A-Za-z][A-Za-z0-9+.\-]*://)([^\s:/?#@\"'<>]*):([^\s/?#\"'<>]+)@")
_URL_USERINFO = re.compile(r"^(\s*[A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s]*@")
_TOKEN_PUNCTUATION = frozenset("-._~+/=")

T = TypeVar("T")


class SecretRegistry:
    """The credentials this process holds, by value; safe to add to from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()

    def add(self, value: str) -> None:
        with self._lock:
            self._secrets.add(value)

    def values(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._secrets)


_registry = SecretRegistry()


def register_secret(value: str | None) -> None:
    """Mask ``value`` in every text redacted from now on (a key, a token, a password)."""
    if value and value.strip():
        _registry.add(value.strip())


def register_url_credentials(url: str) -> None:
    """Register the password of a ``scheme://user:password@host`` URL: as written, decoded,
    and as the base64 ``user:password`` an HTTP client sends for it in a Basic header."""
    match = _URL_PASSWORD.search(url)
    if match is None:
        return
    user, password = unquote(match.group(2)), unquote(match.group(3))
    register_secret(match.group(3))
    register_secret(password)
    register_secret(base64.b64encode(f"{user}:{password}".encode()).decode("ascii"))


def url_without_userinfo(url: str) -> str:
    """The URL with any ``user:password@`` removed; a URL without one is returned unchanged."""
    return _URL_USERINFO.sub(r"\1", url, count=1)


def split_url_password(text: str) -> tuple[str, str | None]:
    """``text`` with the password of its ``scheme://user:password@`` URL masked, and that
    password as written (None when there is none, or it is already the mask): what a
    setting may keep, and what goes to the keyring instead."""
    match = _URL_PASSWORD.search(text)
    if match is None or match.group(3) == MASK:
        return text, None
    return f"{text[: match.start(3)]}{MASK}{text[match.end(3) :]}", match.group(3)


def masked_url_password(text: str) -> bool:
    """Whether ``text`` carries a URL whose password was masked (``user:***@``)."""
    match = _URL_PASSWORD.search(text)
    return match is not None and match.group(3) == MASK


def with_url_password(text: str, password: str) -> str:
    """``text`` with the masked password of its URL replaced by ``password`` (as written in a URL)."""
    match = _URL_PASSWORD.search(text)
    if match is None or match.group(3) != MASK:
        return text
    return f"{text[: match.start(3)]}{password}{text[match.end(3) :]}"


def redact(text: str) -> str:
    """``text`` with every known secret and every credential-shaped string replaced by ``***``."""
    if not text:
        return text
    for secret in sorted(_known_secrets(), key=len, reverse=True):
        if len(secret) >= MIN_ANYWHERE:
            text = text.replace(secret, MASK)
        elif secret in text:
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(secret)}(?![A-Za-z0-9])", MASK, text)
    text = _URL_PASSWORD.sub(rf"\1\2:{MASK}@", text)
    text = _BEARER.sub(_bearer, text)
    text = _BASIC.sub(_basic, text)
    text = _SK_KEY.sub(f"sk-{MASK}", text)
    return _KEY_VALUE.sub(rf"\1\2{MASK}", text)


def redact_json(value: T) -> T:
    """A JSON-like value (dicts, lists, strings) with :func:`redact` applied to every string,
    keys included; numbers, booleans and None are kept as they are."""
    if isinstance(value, str):
        return cast(T, redact(value))
    if isinstance(value, dict):
        return cast(T, {redact_json(k): redact_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return cast(T, type(value)(redact_json(item) for item in value))
    return value


def _known_secrets() -> set[str]:
    known = set(_registry.values())
    for name in SECRET_ENV_VARS:
        value = os.environ.get(name, "").strip()
        if value:
            known.add(value)
    return {secret for secret in known if len(secret) >= MIN_SECRET and secret != MASK}


def _bearer(match: re.Match[str]) -> str:
    token = match.group(3)
    looks_like_a_token = any(c.isdigit() or c in _TOKEN_PUNCTUATION for c in token)
    return f"{match.group(1)}{match.group(2)}{MASK}" if looks_like_a_token else match.group(0)


def _basic(match: re.Match[str]) -> str:
    """Only a token that decodes to printable ``user:password`` is a credential."""
    token = match.group(3)
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return match.group(0)
    if ":" not in decoded or not decoded.isprintable():
        return match.group(0)
    return f"{match.group(1)}{match.group(2)}{MASK}"


__all__ = [
    "MASK",
    "SECRET_ENV_VARS",
    "SecretRegistry",
    "masked_url_password",
    "redact",
    "redact_json",
    "register_secret",
    "register_url_credentials",
    "split_url_password",
    "url_without_userinfo",
    "with_url_password",
]
