"""Keys: the operator's signing key, its public JWKS, and the history of every kid.

* :class:`SigningKey` (ES256, EdDSA, RS256, PS256), read from PEM or JWK text
  (:func:`load_signing_key`), written with mode 0600 and never over a file
  (:func:`write_private_key`); :func:`jwks` is the public JWKS (RFC 7517) beside the card;
* the store (:func:`resolve_signing_key`): which key signs this build, from
  ``ACAP_SIGNING_KEY`` or ``signing.keyFile``, refused when it differs from the key
  published under its kid;
* the kid history (:func:`published_keys`, :func:`dropped_kids`): a kid names one key for
  good (RFC 7517 §4.5);
* rotation (:func:`rotate`, :func:`rotate_lost`, :func:`retire`);
* the leak detector (:func:`in_bytes`, :func:`in_value`): private key material where it
  would be published; pure, the findings are made by :mod:`acap.checks` and
  :mod:`acap.publisher`.

No function prints or returns private key material.

May import: :mod:`acap.site`, :mod:`acap.load` and the modules below them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.keys._history import card_kids as card_kids
    from acap.keys._history import dropped_kids as dropped_kids
    from acap.keys._history import key_history as key_history
    from acap.keys._history import previous_keys as previous_keys
    from acap.keys._history import published_elsewhere as published_elsewhere
    from acap.keys._history import published_keys as published_keys
    from acap.keys._history import read_retired as read_retired
    from acap.keys._history import retired_kids as retired_kids
    from acap.keys._key import PRIVATE_MEMBERS as PRIVATE_MEMBERS
    from acap.keys._key import SigningKey as SigningKey
    from acap.keys._key import b64url as b64url
    from acap.keys._key import b64url_decode as b64url_decode
    from acap.keys._key import describe_key as describe_key
    from acap.keys._key import generate_private_key as generate_private_key
    from acap.keys._key import jwks as jwks
    from acap.keys._key import load_signing_key as load_signing_key
    from acap.keys._key import new_key_file as new_key_file
    from acap.keys._key import private_markers as private_markers
    from acap.keys._key import public_jwk as public_jwk
    from acap.keys._key import read_jwks as read_jwks
    from acap.keys._key import thumbprint as thumbprint
    from acap.keys._key import write_private_key as write_private_key
    from acap.keys._leaks import KeyMaterial as KeyMaterial
    from acap.keys._leaks import holds_private_key as holds_private_key
    from acap.keys._leaks import in_bytes as in_bytes
    from acap.keys._leaks import in_value as in_value
    from acap.keys._leaks import text_place as text_place
    from acap.keys._rotation import retire as retire
    from acap.keys._rotation import rotate as rotate
    from acap.keys._rotation import rotate_lost as rotate_lost
    from acap.keys._store import ResolvedKey as ResolvedKey
    from acap.keys._store import resolve_signing_key as resolve_signing_key

__getattr__, __dir__ = exports(__name__)
