"""What an agent serves and obeys, as ``acap build`` made it: the card file's exact bytes,
the JWKS beside it, the runtime policy (:mod:`acap.builder._policy`), and the values the
operator gives on request (``operator.private.yaml``), which the egress guard never lets
reach a caller not entitled to them (:mod:`acap.agent._guard`).

They are read once, at start-up, and checked together: the policy must name this card's
SHA-256 (else it belongs to another build), the card must verify with the JWKS (else a
client's verifier would refuse what the agent serves), and a private values file that is
there must be read whole (else the guard would run without the values it protects: the
agent does not start).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from acap.builder import AgentPolicy, policy_path_for, read_agent_policy
from acap.card import Verifier
from acap.checks import PrivateValue, read_private_values
from acap.errors import AcapError, FileRefused
from acap.load import given_root, json_loads, private_path_for, read_file
from acap.replies import OnRequestSkill, ReplyWords, on_request_skills, operator_name
from acap.site import url_to_path
from acap.uris import jwks_url

__all__ = ["BuiltCard"]

_LIMIT = 1024 * 1024
_REBUILD = "run acap build, then start the agent again"


def _read(path: Path, what: str) -> bytes:
    """The bytes of a file the agent serves, read within the folder acap runs in (or the
    folder the path names), no link followed out of it (:func:`acap.load.read_file`):
    what an agent serves as its card is never a file a link elsewhere leads to."""
    try:
        return read_file(path, given_root(path), _LIMIT)
    except FileNotFoundError as exc:
        raise AcapError(f"the {what} {path} does not exist", _REBUILD) from exc
    except FileRefused as exc:
        if exc.too_large:
            raise AcapError(f"the {what} {path} is larger than 1 MiB", _REBUILD) from exc
        raise AcapError(f"the {what} {path} is not read: {exc.reason}", _REBUILD) from exc
    except OSError as exc:
        raise AcapError(f"the {what} {path} cannot be read: {exc.strerror or exc}",
                        _REBUILD) from exc


def _private_values(path: Path, policy: AgentPolicy) -> tuple[PrivateValue, ...]:
    """The values of the private file ``path`` (none when it does not exist).

    Raises:
        AcapError: the file is there but refused or faulty (the guard would otherwise run
            without the values it protects); the message names the line, never a value.
    """
    kinds = {sid: s.kind for sid, s in policy.skills.items()}
    read = read_private_values(path, str(path), kinds)
    errors = [f for f in read.findings if f.level == "error"]
    if errors:
        f = errors[0]
        raise AcapError(f"{f.location}: {f.message}", f.hint or "fix operator.private.yaml, "
                        "then start the agent again")
    return tuple(read.values)


def _json(data: bytes, path: Path, what: str) -> dict[str, Any]:
    try:
        value = json_loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        raise AcapError(f"the {what} {path} is not JSON: {exc}", _REBUILD) from exc
    if not isinstance(value, dict):
        raise AcapError(f"the {what} {path} is not a JSON object", _REBUILD)
    return value


@dataclass(frozen=True)
class BuiltCard:
    """A built card, its JWKS and its agent policy, checked to belong together.

    Attributes:
        card_bytes: the card file, byte for byte (served as it is: the signature covers it).
        card: the card, parsed.
        jwks_bytes: the JWKS file, byte for byte.
        policy: the runtime policy (skill kinds, OR-5.6 safeguards, the agent's words).
        card_path: where the card was read.
        private_values: the values of ``operator.private.yaml`` (never printed or logged).
    """

    card_bytes: bytes
    card: Mapping[str, Any]
    jwks_bytes: bytes
    policy: AgentPolicy
    card_path: Path
    private_values: tuple[PrivateValue, ...] = field(default=(), repr=False)

    @classmethod
    def from_files(cls, card: str | Path, jwks: str | Path, policy: str | Path,
                   private_values: str | Path | None = None) -> BuiltCard:
        """Read the files ``acap build`` wrote, and the private values beside them.

        Args:
            card: ``site/<card host>/.well-known/agent-card.json``.
            jwks: ``site/<card host>/.well-known/jwks.json``.
            policy: ``.acap/<operator file's stem>.agent-policy.json`` beside the operator file.
            private_values: ``operator.private.yaml`` (:mod:`acap.checks._on_request_values`'s
                format); ``None`` or a file that does not exist: no values.

        Raises:
            AcapError: a file is missing or unreadable; the policy was built with another
                card; no signature of the card verifies with the JWKS; the private values
                file is there but cannot be read whole.
        """
        card_path, jwks_path = Path(card), Path(jwks)
        card_bytes = _read(card_path, "card")
        parsed = _json(card_bytes, card_path, "card")
        jwks_bytes = _read(jwks_path, "JWKS")
        keys = _json(jwks_bytes, jwks_path, "JWKS")
        pol = read_agent_policy(Path(policy))
        if not pol.matches(card_bytes):
            raise AcapError(f"the agent policy {policy} was built with another card than "
                            f"{card_path}", "run acap build: it writes both at once")
        result = Verifier.from_jwks(keys, str(jwks_path)).verify(parsed, cf=None)
        if not any(s.valid for s in result.signatures):
            why = "; ".join(f.message for f in result.report.errors) or "no valid signature"
            raise AcapError(f"the card {card_path} does not verify with {jwks_path}: {why}",
                            _REBUILD)
        values = _private_values(Path(private_values), pol) if private_values else ()
        return cls(card_bytes, parsed, jwks_bytes, pol, card_path, values)

    @classmethod
    def from_project(cls, config: str | Path = "operator.yaml",
                     site_dir: str | Path | None = None) -> BuiltCard:
        """Read what ``acap build -c config`` wrote: the policy beside ``config``, the card
        and JWKS under site/ (by the card URL the policy names).

        Args:
            config: the operator file.
            site_dir: the site folder; default ``site`` beside the operator file.

        The private values are ``operator.private.yaml`` beside the operator file
        (``chapel.yaml`` -> ``chapel.private.yaml``), when there is one.

        Raises:
            AcapError: as :meth:`from_files`.
        """
        config = Path(config)
        site = Path(site_dir) if site_dir is not None else config.parent / "site"
        policy = policy_path_for(config)
        pol = read_agent_policy(policy)
        try:
            card_rel = url_to_path(pol.card_url)
        except ValueError as exc:
            raise AcapError(f"the agent policy {policy} names no card URL", _REBUILD) from exc
        host = card_rel.split("/", 1)[0]
        return cls.from_files(site / card_rel, site / url_to_path(jwks_url(host)), policy,
                              private_path_for(config))

    @property
    def skills(self) -> dict[str, OnRequestSkill]:
        """The card's on-request skills, by id (the extension's ``params.skills``)."""
        return on_request_skills(self.card)

    @property
    def operator(self) -> str:
        """The operator's name, for the agent's words (``provider.organization``)."""
        return operator_name(self.card) or self.policy.operator or "The operator"

    @property
    def languages(self) -> tuple[str, ...]:
        """The operator's languages (``page.languages``), its own first."""
        return self.policy.languages or ("en",)

    def words(self, language: str) -> ReplyWords:
        """The agent's sentences in ``language`` (one of :attr:`languages`; another is
        the operator's own), from the policy; English where the policy has none."""
        tag = language if language in self.policy.words else self.languages[0]
        return ReplyWords(tag, self.policy.words.get(tag))

    def interface_path(self, binding: str = "JSONRPC") -> str | None:
        """The URL path of the card's first A2A 1.0 interface with ``binding``
        (``/a2a/v1``), or ``None`` when the card has none."""

        for i in self.card.get("supportedInterfaces") or ():
            if isinstance(i, Mapping) and i.get("protocolBinding") == binding \
                    and str(i.get("protocolVersion", "")).startswith("1.") \
                    and isinstance(i.get("url"), str):
                return urlsplit(i["url"]).path or "/"
        return None
