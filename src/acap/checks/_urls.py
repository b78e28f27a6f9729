"""URL rules that apply to every URL acap writes or reads, and the card's own URL.

Rule ids:
* ``URL-FORM``: a URL is absolute, parses, and has no whitespace, control
  character, backslash or user name/password; a host name has no final dot.
* ``URL-IDN``: an internationalised host is written as A-labels (IDNA 2008,
  RFC 5891), each of which decodes and encodes back to itself.
* ``URL-SCRIPT``: no host label mixes scripts (``pаypal`` with a Cyrillic ``а``).
* ``URL-HTTPS``: where a URL must be https (interfaces, sign-in URLs, the
  operator's website), it is; plain http only for localhost.
* ``CARD-URL``: the card is at ``https://{host}/.well-known/agent-card.json``,
  the root of its origin (A2A §8.2); a GitHub project site is reported with
  the fix.

The functions here return :class:`Problem` tuples without a location; the
operator.yaml and card checks attach the place.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from typing import NamedTuple
from urllib.parse import SplitResult, urlsplit

from acap.findings import Finding, Level
from acap.uris import CARD_PATH

#: Hosts where plain http is accepted (previews and tests).
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


class Problem(NamedTuple):
    """A fault found in a value, before it is given a location.

    Attributes:
        rule: rule id.
        level: ``error`` or ``warning``.
        message: what is wrong (the caller may prefix which field).
        hint: how to fix it.
    """

    rule: str
    level: Level
    message: str
    hint: str


def split(url: str) -> SplitResult | None:
    """``urlsplit(url)``, or ``None`` when Python cannot split it (a bad port, IPv6)."""
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a port that is not a number in range
    except ValueError:
        return None
    return parts


def url_problems(url: str, *, secure: bool = False, what: str = "the URL") -> list[Problem]:
    """Check one absolute URL.

    Args:
        url: the URL as written.
        secure: it must be https (plain http only on localhost): ``URL-HTTPS``.
        what: how to name the value in messages (``"agent.interfaces[0].url"``).

    Returns:
        Problems (``URL-FORM``, ``URL-IDN``, ``URL-SCRIPT``, ``URL-HTTPS``); empty
        when the URL is fine.
    """
    out: list[Problem] = []
    bad = [ch for ch in url if ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf")]
    if bad:
        kind = "a space" if bad[0] == " " else f"the invisible character U+{ord(bad[0]):04X}"
        out.append(Problem("URL-FORM", "error", f"{what} contains {kind}",
                           "remove it; a space inside a path is written %20"))
        return out
    if "\\" in url:
        out.append(Problem("URL-FORM", "error", f"{what} contains a backslash (\\)",
                           "use forward slashes (/)"))
        return out
    parts = split(url)
    if parts is None:
        return [Problem("URL-FORM", "error", f"{what} is not a valid URL ({url})",
                        "check the port number and brackets")]
    if not parts.scheme:
        return [Problem("URL-FORM", "error", f"{what} is not an absolute URL: '{url}'",
                        "write it in full, starting with https://")]
    if parts.scheme in ("http", "https", "wss", "ws"):
        if not parts.hostname:
            return [Problem("URL-FORM", "error", f"{what} has no host: '{url}'",
                            "write it as https://host/path")]
        if parts.username is not None or parts.password is not None:
            out.append(Problem("URL-FORM", "error",
                               f"{what} carries a user name or password before the host",
                               "remove the part before @"))
        out.extend(host_problems(parts.hostname, what=f"the host of {what}"))
    if secure and not is_secure(parts):
        out.append(Problem("URL-HTTPS", "error", f"{what} must be https, not {parts.scheme}",
                           "use https:// (plain http is accepted only for localhost)"))
    return out


def is_secure(parts: SplitResult) -> bool:
    """True for https (and wss), or plain http(s)/ws on a loopback host."""
    if parts.scheme in ("https", "wss"):
        return True
    return parts.scheme in ("http", "ws") and (parts.hostname or "") in LOOPBACK


def host_problems(host: str, *, what: str = "the host") -> list[Problem]:
    """Check a host name: A-labels only, each round-trips (IDNA 2008), no mixed scripts,
    no final dot (``ask.example.com.``, the absolute DNS form, is another origin and
    another name for certificates and static hosts).

    Args:
        host: a host name as written (``xn--bcher-kva.example`` or ``bücher.example``).
        what: how to name it in messages.

    Returns:
        ``URL-FORM``, ``URL-IDN`` and ``URL-SCRIPT`` problems.
    """
    if host.startswith("[") or _is_ipv4(host):
        return []
    odd = next((c for c in host if c.isspace() or unicodedata.category(c) in ("Cc", "Cf")
                or c == "\\"), None)
    if odd is not None:  # a two-line CNAME, a folder named with a backslash (issue 12)
        kind = "a space" if odd == " " else "a backslash" if odd == "\\" else \
            "a line break" if odd in "\r\n" else f"the invisible character U+{ord(odd):04X}"
        return [Problem("URL-FORM", "error", f"{what} {host!r} contains {kind}; a host name "
                        "is letters, digits, hyphens and dots", "write the name only, on one "
                        "line, e.g. example.com")]
    if any(c in host for c in "/:@?#%") or host.startswith("."):
        return [Problem("URL-FORM", "error", f"{what} '{host}' is not a host name",
                        "write the name only, e.g. example.com")]
    if host.isascii() and not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.?", host):
        return [Problem("URL-FORM", "error", f"{what} '{host}' is not a host name: a host "
                        "name is letters, digits, hyphens and dots, with no empty label",
                        "write the name only, e.g. example.com")]
    if host.endswith("."):
        bare = host.rstrip(".")
        return [Problem("URL-FORM", "error", f"{what} '{host}' ends with a dot",
                        f"drop the final dot: write {bare} (with the dot it is another name "
                        "to browsers, TLS certificates and static hosts, so the card, its "
                        "pages and their origin would not match)")]
    if not host.isascii():
        import idna  # IDNA 2008 (RFC 5891) and UTS 46: only for a host that needs it

        try:
            alabel = idna.encode(host, uts46=True).decode("ascii")
        except idna.IDNAError as exc:
            return [Problem("URL-IDN", "error", f"{what} '{host}' is not a valid "
                            f"internationalised host name ({exc})",
                            "check the spelling of the host")]
        letters = "".join(dict.fromkeys(c for c in host if not c.isascii()))
        out = [Problem("URL-IDN", "error", f"{what} '{host}' must be written in letters a "
                       f"to z only, as DNS spells names with {_listed(letters)}",
                       f"write {alabel} (browsers show it as {idna.decode(alabel)})")]
        out.extend(_script_problems(idna.decode(alabel), what))
        return out
    out = []
    for label in host.rstrip(".").split("."):
        if not label.lower().startswith("xn--"):
            continue
        import idna  # as above: 10 ms to import, for an xn-- label only

        try:
            ulabel = idna.decode(label)
            back = idna.encode(ulabel).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            # The library's reason (a code point and its position) goes unsaid: the
            # see: link's page names the standard.
            out.append(Problem("URL-IDN", "error", f"{what}: '{label}' starts with xn--, the "
                               "mark of a name with letters beyond a to z, but spells no such "
                               "name", "write the host as a browser shows it (with its accents) "
                               "and acap tells you the form to use"))
            continue
        if back != label.lower():
            out.append(Problem("URL-IDN", "error", f"{what}: '{label}' is not how DNS spells "
                               f"'{ulabel}'", f"write {back}"))
            continue
        shown = ".".join(ulabel if part == label else part for part in host.split("."))
        out.extend(_script_problems(shown, what, only=ulabel))
    return out


#: Names that are never public DNS names, each with what it is and its source: a host
#: under one of them (or the name itself) is no host to publish on. ``.example``
#: (RFC 6761 §6.5) is left out on purpose: the tests, the bench and the docs build
#: ``op0.example`` hosts, and publishing to them is judged at publish time. Wildcard
#: DNS services (``nip.io``, ``sslip.io``) are left alone too: they are public names
#: that anyone may register under, and what they resolve to is judged when fetched.
SPECIAL_USE_SUFFIXES: dict[str, str] = {
    # RFC 6761 §6.3: loopback, answered by this machine itself.
    "localhost": "a name of this machine (localhost)",
    # RFC 6762 §3: multicast DNS, answered only on the local network.
    "local": "a multicast DNS name (.local), answered only on a local network",
    # RFC 8375: the home network's own names.
    "home.arpa": "a home network name (.home.arpa)",
    # ICANN Board resolution 2024.07.29.06: reserved for private use, never delegated
    # (metadata.google.internal is a cloud machine's metadata server).
    "internal": "a private network name (.internal)",
    # De facto, never delegated in the root zone: /etc/hosts of many Linux distributions
    # names this machine localhost.localdomain.
    "localdomain": "a name of this machine or its network (.localdomain)",
    # RFC 7686: Tor onion services, unreachable through DNS.
    "onion": "a Tor onion service name (.onion), not reached through DNS",
    # RFC 6761 §6.4 (RFC 2606): guaranteed never to resolve.
    "invalid": "a name that never resolves (.invalid)",
    # RFC 6761 §6.2 (RFC 2606): for testing, never delegated.
    "test": "a name for testing (.test), never delegated",
    # RFC 9476: names of systems other than DNS.
    "alt": "a name of a system other than DNS (.alt)",
}


def special_use(name: str) -> str | None:
    """What ``name`` (lower case, no final dot) is when it is one of
    :data:`SPECIAL_USE_SUFFIXES` or lies under one, else ``None``."""
    labels = name.split(".")
    for i in range(len(labels)):
        found = SPECIAL_USE_SUFFIXES.get(".".join(labels[i:]))
        if found is not None:
            return found
    return None


def site_host_problems(host: str, *, what: str = "the host") -> list[Problem]:
    """``URL-FORM``: a host an operator publishes on (it becomes a folder of site/, served
    by name on a shared web server) must be a public DNS name: not an IP address in any
    form a resolver accepts (``127.0.0.1``, ``0x7f.1``, ``2130706433``, ``[::1]``), not
    a special-use name or one under it (:data:`SPECIAL_USE_SUFFIXES`: ``localhost``,
    ``.local``, ``.home.arpa``, ``.internal``, ``.onion``, ``.test`` ..., each with its
    source), not a single label (``acap``, an internal name). On a web server answering
    every name, such a folder would serve requests made by address or to internal names.

    Args:
        host: the host as written (``example.com``, ``[::1]``).
        what: how to name it in messages.
    """
    import ipaddress  # start-up: only for an operator's hosts
    import socket  # start-up: as above

    name = host.strip().rstrip(".").lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    literal = False
    try:
        ipaddress.ip_address(bare.split("%", 1)[0])
        literal = True
    except ValueError:
        try:  # the forms inet_aton accepts too: 0x7f.1, 127.1, 2130706433 (own code:
            socket.inet_aton(bare)  # ipaddress reads dotted-quad decimal only)
            literal = True
        except (OSError, ValueError, UnicodeError):
            literal = False
    if literal:
        reason = "an IP address"
    elif (kind := special_use(bare)) is not None:
        reason = kind
    elif bare and "." not in bare:
        reason = "a single name with no dot, which only a local network knows"
    else:
        return []
    return [Problem("URL-FORM", "error", f"{what} '{host}' is {reason}, not a public host "
                    "name; acap publishes only on names registered in DNS",
                    "write the domain name your site is served on, e.g. example.com")]


def _listed(letters: str) -> str:
    """``"ü"`` -> ``"ü"``; ``"äö"`` -> ``"ä and ö"``; ``"äöü"`` -> ``"ä, ö and ü"``."""
    if len(letters) <= 1:
        return letters or "other letters"
    return ", ".join(letters[:-1]) + " and " + letters[-1]


def one_finding_per_host(findings: list[Finding]) -> list[Finding]:
    """A host written with letters beyond a to z (``URL-IDN``, "write xn--..."), wherever
    it appears in operator.yaml, is one error: at its first place, naming the lines of the
    others, rather than one error per occurrence of the same fix.

    Args:
        findings: findings of one file, in the order found.

    Returns:
        The findings with each such group merged into its first.
    """
    groups: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        if f.rule == "URL-IDN" and f.hint and f.hint.startswith("write ") and "xn--" in f.hint:
            groups.setdefault(f.hint, []).append(i)
    drop = {i for idx in groups.values() for i in idx[1:]}
    out = []
    for i, f in enumerate(findings):
        if i in drop:
            continue
        idx = groups.get(f.hint or "", [])
        lines = sorted({n for j in idx[1:] if (n := findings[j].location.line) is not None}
                       - {f.location.line})
        if idx and idx[0] == i and lines:
            also = " and ".join([", ".join(map(str, lines[:-1])), str(lines[-1])]
                                if len(lines) > 1 else [str(lines[0])])
            f = replace(f, message=f"{f.message} (the same host is on line"
                        f"{'s' if len(lines) > 1 else ''} {also} too)")
        out.append(f)
    return out


def _is_ipv4(host: str) -> bool:
    parts = host.split(".")
    return len(parts) == 4 and all(p.isdigit() for p in parts)


# Scripts that UTS #39's "highly restrictive" level lets one label combine.
_ALLOWED_MIXES = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
                  frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                  frozenset({"LATIN", "HAN", "HANGUL"}))


def script_of(ch: str) -> str | None:
    """The script of a letter in a host label, or ``None`` for digits, ``-`` and marks.

    Python's :mod:`unicodedata` has no Script property, and the libraries that
    do (fontTools, regex) are large for this one use. The first word of a
    character's Unicode name is its script for the letters IDNA 2008 permits
    (``LATIN SMALL LETTER A``, ``CYRILLIC SMALL LETTER A``, ``CJK UNIFIED
    IDEOGRAPH-4E00``); that is what this reads.
    """
    cat = unicodedata.category(ch)
    if cat.startswith(("N", "M", "P", "Z", "S")):
        return None
    word = unicodedata.name(ch, "UNKNOWN").split(" ")[0]
    if word in ("CJK", "IDEOGRAPHIC"):
        return "HAN"
    if word == "KATAKANA-HIRAGANA":
        return None
    return word


def mixed_scripts(label: str) -> set[str]:
    """The scripts of ``label`` when it mixes them in a way UTS #39 does not allow, else ``{}``."""
    scripts = {s for s in map(script_of, label) if s}
    if len(scripts) <= 1 or any(scripts <= mix for mix in _ALLOWED_MIXES):
        return set()
    return scripts


def _script_problems(host: str, what: str, only: str | None = None) -> list[Problem]:
    """URL-SCRIPT for each label of ``host`` (Unicode form) that mixes scripts, or for the
    label ``only``; the message is one plain sentence: ``the host of operator.website is
    'exаmple.com', whose label 'exаmple' mixes Cyrillic and Latin letters ...``."""
    out = []
    for label in [only] if only is not None else host.split("."):
        scripts = mixed_scripts(label)
        if scripts:
            names = " and ".join(sorted(s.title() for s in scripts))
            out.append(Problem("URL-SCRIPT", "error",
                               f"{what} is '{host}', whose label '{label}' mixes {names} "
                               "letters, a common way to imitate another name",
                               "write each label in one script"))
    return out


def card_url_problems(url: str) -> list[Problem]:
    """``CARD-URL``: the card is at the root of its origin, at the A2A §8.2 well-known path.

    Args:
        url: where the card is (or will be) served.

    Returns:
        Problems; for a GitHub project site (``owner.github.io/repo/...``) the
        hint gives both fixes.
    """
    parts = split(url)
    if parts is None or not parts.hostname:
        return [Problem("CARD-URL", "error", f"the card URL '{url}' is not a URL",
                        f"serve it at https://HOST{CARD_PATH}")]
    out: list[Problem] = []
    host = parts.hostname
    if parts.query or parts.fragment:
        out.append(Problem("CARD-URL", "error", "the card URL carries a query or fragment",
                           f"serve it at https://{host}{CARD_PATH}"))
    if parts.path == CARD_PATH:
        return out
    prefix = parts.path[: -len(CARD_PATH)] if parts.path.endswith(CARD_PATH) else None
    if host.endswith(".github.io") and prefix:
        owner = host[: -len(".github.io")]
        out.append(Problem("CARD-URL", "error",
                           f"the card is on a GitHub project site ({host}{prefix}/), not at the "
                           f"root of {host}: clients look for https://{host}{CARD_PATH}",
                           f"give the project a custom domain (a CNAME file), or publish from "
                           f"the repository named {owner}.github.io"))
    elif prefix is not None:
        out.append(Problem("CARD-URL", "error",
                           f"the card is under {prefix}/, not at the root of its origin: clients "
                           f"look for https://{host}{CARD_PATH}",
                           "publish it at the root of the host"))
    else:
        out.append(Problem("CARD-URL", "error",
                           f"the card is at {parts.path or '/'}, not at {CARD_PATH}, "
                           "where clients look for it",
                           f"publish it at https://{host}{CARD_PATH}"))
    return out
