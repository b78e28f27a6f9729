"""The extension's own specification site, built with MkDocs at the extension URI.

The pages' sources live in ``acap/spec/``; the requirement tables are rendered from
:mod:`acap.requirements` (anchors equal the ids, ``#OR-3.4``) and the examples of Annex A
are checked at every build (:func:`check_examples`). The output is reproducible.

May import: :mod:`acap.builder._context` and the stages below :mod:`acap.builder`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.builder.specsite._examples import check_examples as check_examples
    from acap.builder.specsite._site import add_spec_site as add_spec_site
    from acap.builder.specsite._site import build_spec_site as build_spec_site

__getattr__, __dir__ = exports(__name__)
