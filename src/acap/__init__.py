"""acap: build, sign and publish an A2A 1.0 Agent Card with the On Request extension.

The library is the product; the ``acap`` command is a thin layer over it.
Start with :func:`acap.build._build.build` (operator.yaml -> site/) and
:func:`acap.card._verifier.verify_card` (check a card's signatures).
"""

__version__ = "0.1.0"
