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
    from acap.keys._history import (
        dropped_kids as dropped_kids,
        free_kid as free_kid,
        key_history as key_history,
        next_kid as next_kid,
        published_keys as published_keys,
        read_retired as read_retired,
        retired_and_reused as retired_and_reused,
        same_public_key as same_public_key,
        site_published_keys as site_published_keys,
        write_previous_keys as write_previous_keys,
    )
    from acap.keys._key import (
        PRIVATE_MEMBERS as PRIVATE_MEMBERS,
        SUPPORTED_ALGS as SUPPORTED_ALGS,
        SigningKey as SigningKey,
        algorithm_for as algorithm_for,
        b64url as b64url,
        b64url_decode as b64url_decode,
        generate_private_key as generate_private_key,
        jwks as jwks,
        load_signing_key as load_signing_key,
        parse_private_key as parse_private_key,
        private_markers as private_markers,
        public_jwk as public_jwk,
        read_jwks as read_jwks,
        read_key_file_doc as read_key_file_doc,
        thumbprint as thumbprint,
        write_private_key as write_private_key,
    )
    from acap.keys._leaks import (
        PEM_PRIVATE as PEM_PRIVATE,
        KeyMaterial as KeyMaterial,
        holds_private_key as holds_private_key,
        in_bytes as in_bytes,
        in_value as in_value,
        text_place as text_place,
    )
    from acap.keys._rotation import (
        replace_scalar as replace_scalar,
        replaced_scalar as replaced_scalar,
        retire as retire,
        rotate as rotate,
        rotate_lost as rotate_lost,
    )
    from acap.keys._store import (
        ResolvedKey as ResolvedKey,
        describe_key as describe_key,
        new_key_file as new_key_file,
        resolve_signing_key as resolve_signing_key,
    )

__getattr__, __all__ = exports(__name__, {
    "_key": [
        "PRIVATE_MEMBERS", "SUPPORTED_ALGS", "SigningKey", "algorithm_for", "b64url",
        "b64url_decode", "generate_private_key", "jwks", "load_signing_key", "parse_private_key",
        "private_markers", "public_jwk", "read_jwks", "read_key_file_doc", "thumbprint",
        "write_private_key",
    ],
    "_leaks": [
        "KeyMaterial", "PEM_PRIVATE", "holds_private_key", "in_bytes", "in_value", "text_place",
    ],
    "_store": ["ResolvedKey", "describe_key", "new_key_file", "resolve_signing_key"],
    "_history": [
        "dropped_kids", "free_kid", "key_history", "next_kid", "published_keys", "read_retired",
        "retired_and_reused", "same_public_key", "site_published_keys", "write_previous_keys",
    ],
    "_rotation": ["replace_scalar", "replaced_scalar", "retire", "rotate", "rotate_lost"],
})
