"""Where the tests' data lies, from any test folder."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
SRC = REPO / "src" / "acap"
#: The bundled example (the spec's Annex A chapel).
EXAMPLE = REPO / "operator.yaml"
#: Case files: operator/, card/, reply/ (failing and valid), each with its expected findings.
CASES = TESTS / "cases"
#: Published test vectors (RFC 8785, RFC 7515/7520/8037, RFC 6979), with their provenance.
VECTORS = TESTS / "vectors"
#: Other test data (the Annex A.1 card as printed).
DATA = TESTS / "data"
