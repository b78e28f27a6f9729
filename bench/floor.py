"""The floor of a batch build: the library calls a signed card needs, nothing of acap's own.

Run as a whole process beside ``acap build DIR`` (see :func:`run.bench_batch`), so that
both pay for starting Python and importing their libraries::

    python bench/floor.py OPS_DIR BUILT_SITE OUT_DIR

For each operator folder of ``OPS_DIR`` (as ``bench/generate.py`` writes them): read its
operator.yaml and compose it (PyYAML on libyaml), load its PEM key, RFC 8785 of its
card, ECDSA P-256, the card and JWKS as pretty JSON (``json.dumps(indent=2)``), and the
four files a host gets with pages off (card, JWKS, ``_headers``, ``.nojekyll``) written
under ``OUT_DIR`` and hashed. The card, JWKS and ``_headers`` are those acap built into
``BUILT_SITE`` (read first, so that both sides work on the same data); that preload is
timed and printed as JSON (``{"preload_cpu": s, "preload_wall": s}``), for the bench to
take out of the process's time.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path

import rfc8785
import yaml
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key


def main() -> None:
    ops_dir, built, out = (Path(a) for a in sys.argv[1:4])
    cpu0, wall0 = time.process_time(), time.perf_counter()
    ops = sorted(ops_dir.glob("*/operator.yaml"))
    hosts = [built / f"op{int(p.parent.name[2:])}.example" for p in ops]  # generate.py
    docs = [(json.loads((h / ".well-known/agent-card.json").read_bytes()),
             json.loads((h / ".well-known/jwks.json").read_bytes()),
             (h / "_headers").read_bytes()) for h in hosts]
    preload = {"preload_cpu": time.process_time() - cpu0,
               "preload_wall": time.perf_counter() - wall0}
    for i, (path, (card, jwks, headers)) in enumerate(zip(ops, docs, strict=True)):
        yaml.compose(path.read_bytes(), Loader=yaml.CSafeLoader)
        key = load_pem_private_key((path.parent / ".acap/signing-key.pem").read_bytes(), None)
        body = {k: v for k, v in card.items() if k != "signatures"}
        key.sign(rfc8785.dumps(body), ec.ECDSA(hashes.SHA256()))  # type: ignore[union-attr, call-arg]
        files = {".well-known/agent-card.json": json.dumps(card, indent=2, ensure_ascii=False),
                 ".well-known/jwks.json": json.dumps(jwks, indent=2, ensure_ascii=False)}
        host = out / f"h{i}"
        (host / ".well-known").mkdir(parents=True)
        for rel, data in [*((r, (t + "\n").encode()) for r, t in files.items()),
                          ("_headers", headers), (".nojekyll", b"")]:
            (host / rel).write_bytes(data)
            hashlib.sha256(data).hexdigest()
    print(json.dumps(preload))


if __name__ == "__main__":
    main()
