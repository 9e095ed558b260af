"""Reviewer signing keys: Ed25519 key pairs kept per user, never inside a project.

A release is signed by the person who publishes it, so the private key belongs to
that person, not to the project folder (which is shared, copied and backed up).
Keys live in the per-user data folder, one ``NAME.key`` (PKCS#8 PEM, mode 0600) and
one ``NAME.pub`` (the raw 32-byte public key in base64, one line) per reviewer; the
public half is what a reader of a bundle pins with ``--public-key``.

Anyone can make a key and sign a bundle with it, so a valid signature says nothing
until the key is one the reader trusts: their own reviewer keys, and the keys listed
in a trusted-keys file in the user config folder (``BASE64KEY NAME`` a line, as
ssh's authorized_keys), which ``gtreview keys trust FILE.pub`` adds to.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from platformdirs import user_config_path, user_data_path
from pydantic import BaseModel

from gtreview.core.errors import UserError
from gtreview.files import atomic_path, write_text_atomic
from gtreview.inputs import NO_SUCH_FILE, InputReadError, read_at_most

ALGORITHM = "Ed25519"
PRIVATE_SUFFIX = ".key"
PUBLIC_SUFFIX = ".pub"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class SigningKeyError(UserError, ValueError):
    """A key that cannot be created, found or read (one line for the user)."""


class ReviewerKey(BaseModel):
    """What may be shown about a key: never the private bytes."""

    name: str
    public_key: str  # raw 32 bytes, base64
    fingerprint: str
    private_path: Path | None = None
    public_path: Path | None = None


@dataclass(frozen=True)
class SigningKey:
    """A loaded private key and the name it signs as; lives in memory only."""

    name: str
    private_key: Ed25519PrivateKey

    @property
    def public_key(self) -> bytes:
        return raw_public_key(self.private_key.public_key())


def default_key_dir() -> Path:
    return user_data_path("gtreview", appauthor=False) / "keys"


def default_trusted_keys_file() -> Path:
    return user_config_path("gtreview", appauthor=False) / "trusted_keys.txt"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def strict_b64decode(text: str) -> bytes:
    """Decode base64 that must be in canonical form.

    Plain decoding ignores the unused low bits of the last character, so two texts
    would decode to the same key or signature; a bundle must fail on any changed byte.
    """
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise SigningKeyError("not valid base64") from None
    if b64(raw) != text:
        raise SigningKeyError("not canonical base64")
    return raw


def raw_public_key(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def fingerprint(raw_public: bytes) -> str:
    """A short, comparable name for a public key (sha256 of its raw bytes, hex)."""
    return hashlib.sha256(raw_public).hexdigest()[:32]


def sign(private_key: Ed25519PrivateKey, data: bytes) -> bytes:
    return private_key.sign(data)


def signature_valid(raw_public: bytes, signature: bytes, data: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(raw_public).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def _check_name(name: str) -> str:
    if not _NAME.match(name):
        raise SigningKeyError(
            f"{name!r} is not a usable key name (letters, digits, '.', '_' and '-', starting with a letter or digit)"
        )
    return name


def _info(
    name: str, private_key: Ed25519PrivateKey, private_path: Path | None, public_path: Path | None
) -> ReviewerKey:
    raw = raw_public_key(private_key.public_key())
    return ReviewerKey(
        name=name, public_key=b64(raw), fingerprint=fingerprint(raw), private_path=private_path, public_path=public_path
    )


def _write_private(path: Path, private_key: Ed25519PrivateKey) -> None:
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    # Private (0600) from the moment it exists, and written beside the target then renamed:
    # a full disk never leaves a truncated key that no longer loads where a key was asked for.
    with atomic_path(path, mode=0o600) as temporary:
        temporary.write_bytes(pem)


def ensure_reviewer_key(name: str, key_dir: Path | None = None) -> ReviewerKey:
    """The reviewer's key, generated on first use; the private half stays in ``key_dir``."""
    folder = key_dir if key_dir is not None else default_key_dir()
    _check_name(name)
    private_path = folder / f"{name}{PRIVATE_SUFFIX}"
    public_path = folder / f"{name}{PUBLIC_SUFFIX}"
    if private_path.exists():
        private_key = load_private_key_file(private_path)
    else:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        private_key = Ed25519PrivateKey.generate()
        _write_private(private_path, private_key)
    info = _info(name, private_key, private_path, public_path)
    if not public_path.exists() or public_path.read_text(encoding="ascii").strip() != info.public_key:
        write_text_atomic(public_path, info.public_key + "\n")
    return info


def list_reviewer_keys(key_dir: Path | None = None) -> list[ReviewerKey]:
    folder = key_dir if key_dir is not None else default_key_dir()
    if not folder.is_dir():
        return []
    keys = []
    for path in sorted(folder.glob(f"*{PRIVATE_SUFFIX}")):
        keys.append(_info(path.stem, load_private_key_file(path), path, path.with_suffix(PUBLIC_SUFFIX)))
    return keys


MAX_KEY_FILE_BYTES = 64 * 1024


def _read_key_bytes(path: Path) -> bytes:
    # Read at most the limit plus one byte: the size stat() reports bounds nothing
    # (it is 0 for /dev/zero), and a key file is a few hundred bytes.
    try:
        data = read_at_most(path, MAX_KEY_FILE_BYTES)  # a pipe or a device is refused unopened
    except InputReadError as exc:
        raise SigningKeyError(f"{path}: {exc.reason}") from None
    if len(data) > MAX_KEY_FILE_BYTES:
        raise SigningKeyError(f"{path}: over {MAX_KEY_FILE_BYTES // 1024} KiB, not a key file")
    return data


def load_private_key_file(path: Path) -> Ed25519PrivateKey:
    """Read a PEM Ed25519 private key, refusing one that other users can read (as ssh does)."""
    try:
        mode = path.stat().st_mode
        data = _read_key_bytes(path)
    except OSError as exc:
        raise SigningKeyError(f"{path}: {exc.strerror or exc}") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SigningKeyError(f"{path}: the private key is readable by other users; chmod 600 it first")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise SigningKeyError(f"{path}: not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: not an Ed25519 key")
    return key


def load_signing_key(name: str, key_dir: Path | None = None) -> SigningKey:
    """A stored reviewer key by name (the private half, for signing)."""
    folder = key_dir if key_dir is not None else default_key_dir()
    path = folder / f"{_check_name(name)}{PRIVATE_SUFFIX}"
    if not path.is_file():
        raise SigningKeyError(f"no reviewer key named {name!r} in {folder} (create one: gtreview keys create NAME)")
    return SigningKey(name, load_private_key_file(path))


def resolve_signing_key(spec: str, key_dir: Path | None = None) -> SigningKey:
    """``--key``: a reviewer key's name, or the path of a private key file (name = file stem)."""
    folder = key_dir if key_dir is not None else default_key_dir()
    if _NAME.match(spec) and (folder / f"{spec}{PRIVATE_SUFFIX}").is_file():
        return SigningKey(spec, load_private_key_file(folder / f"{spec}{PRIVATE_SUFFIX}"))
    path = Path(spec).expanduser()
    if path.is_file():
        return SigningKey(path.stem, load_private_key_file(path))
    raise SigningKeyError(
        f"no key file {spec} and no reviewer key named {spec!r} (create one: gtreview keys create NAME)"
    )


def read_public_key_file(path: Path) -> bytes:
    """A public key to pin: a ``.pub`` file (base64 raw key) or a PEM public key."""
    try:
        data = _read_key_bytes(path)
    except OSError as exc:
        raise SigningKeyError(f"{path}: {exc.strerror or exc}") from None
    if data.lstrip().startswith(b"-----BEGIN"):
        try:
            key = serialization.load_pem_public_key(data)
        except (ValueError, UnsupportedAlgorithm):
            raise SigningKeyError(f"{path}: not a PEM public key") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SigningKeyError(f"{path}: not an Ed25519 public key")
        return raw_public_key(key)
    try:
        raw = strict_b64decode(data.decode("ascii").strip())
    except (SigningKeyError, UnicodeDecodeError):
        raise SigningKeyError(f"{path}: not a base64 Ed25519 public key or a PEM public key") from None
    if len(raw) != 32:
        raise SigningKeyError(f"{path}: an Ed25519 public key is 32 bytes, this one is {len(raw)}")
    return raw


MAX_TRUST_FILE_BYTES = 1024 * 1024


def read_trusted_keys(path: Path | None = None) -> dict[bytes, str]:
    """Trusted public keys (raw bytes -> who) from a trusted-keys file; none if it is absent.

    Blank lines and ``#`` comments are skipped; any other line that is not a base64
    Ed25519 key and a name is refused naming the line, so a typo cannot silently
    distrust (or trust) someone.
    """
    file = path if path is not None else default_trusted_keys_file()
    try:
        data = read_at_most(file, MAX_TRUST_FILE_BYTES)  # a pipe or a device is refused unopened
    except InputReadError as exc:
        if exc.reason == NO_SUCH_FILE:
            return {}
        raise SigningKeyError(str(exc)) from None
    if len(data) > MAX_TRUST_FILE_BYTES:
        raise SigningKeyError(f"{file}: over {MAX_TRUST_FILE_BYTES // 1024} KiB, not a trusted-keys file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SigningKeyError(f"{file}: not UTF-8 text") from None
    trusted: dict[bytes, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        encoded, _, name = line.strip().partition(" ")
        try:
            raw = strict_b64decode(encoded)
        except SigningKeyError:
            raw = b""
        if len(raw) != 32 or not name.strip():
            raise SigningKeyError(f"{file}: line {number} is not 'BASE64KEY NAME' with a 32-byte Ed25519 key")
        trusted[raw] = name.strip()
    return trusted


def add_trusted_key(raw_public: bytes, name: str, path: Path | None = None) -> Path:
    """Add a key to the trusted-keys file (created if need be); returns the file's path."""
    file = path if path is not None else default_trusted_keys_file()
    label = " ".join(name.split())
    if len(raw_public) != 32 or not label:
        raise SigningKeyError("a trusted key needs a 32-byte Ed25519 public key and a name")
    existing = read_trusted_keys(file)
    if existing.get(raw_public) == label:
        return file
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with file.open("a", encoding="utf-8") as handle:
            handle.write(f"{b64(raw_public)} {label}\n")
    except OSError as exc:
        raise SigningKeyError(f"{file}: {exc.strerror or exc}") from None
    return file


def own_public_keys(key_dir: Path | None = None) -> dict[bytes, str]:
    """The public halves of this user's reviewer keys: bundles they signed are trusted."""
    folder = key_dir if key_dir is not None else default_key_dir()
    if not folder.is_dir():
        return {}
    own: dict[bytes, str] = {}
    for path in sorted(folder.glob(f"*{PUBLIC_SUFFIX}")):
        try:
            own[read_public_key_file(path)] = f"{path.stem} (your reviewer key)"
        except SigningKeyError:
            continue  # a damaged .pub trusts nobody; `keys create` rewrites it
    return own
