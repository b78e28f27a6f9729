"""acap's errors: one family, each error saying what is wrong and what to do.

A fault in a user's input is a :class:`~acap.findings.Finding`, never an exception
(see :mod:`acap.findings`). The errors here are raised by library calls that cannot
go on (a key that cannot be read, a URL that is no file of site/, a fetch that
failed), and the stage that called them turns each into a finding with its rule id.
A program using acap as a library catches :class:`AcapError` to catch them all.

Every error:
* says what is wrong in plain words (``str(error)``), without key material and
  without text from a document acap refused to read;
* carries :attr:`AcapError.hint`, what to do about it, or ``None`` where only the
  caller knows (the caller's finding then says it);
* subclasses :class:`ValueError` too where the fault is a value the caller passed in.

One signal of ``acap publish`` that carries a publish plan
(:class:`acap.publisher.ForeignFiles`) subclasses :class:`AcapError` where the plan is
defined; it never leaves :mod:`acap.publisher`.
"""

from __future__ import annotations

__all__ = ["AcapError", "CanonicalizationError", "CardBuildError", "FetchError", "FileChanged",
           "FileRefused", "GitError", "JsonTextError", "KeyProblem", "KeyTextProblem",
           "KeysUnavailable", "ReplyError", "SitePathError", "TemplateLinkOutside",
           "TemplateRefused"]


class AcapError(Exception):
    """The root of acap's errors.

    Attributes:
        message: what is wrong, in plain words (also ``str(error)``).
        hint: what to do about it, or ``None`` when the caller says it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class CanonicalizationError(AcapError, ValueError):
    """A card cannot be put in its signed form: a number outside IEEE 754 double
    precision (RFC 8785 §3.2.2.3), or nesting deeper than acap reads (A2A 1.0 §8.4.1)."""


class CardBuildError(AcapError, ValueError):
    """An Agent Card cannot be built from an operator.yaml: it has errors (its findings
    say which), or a value that its checks should have refused (a bug in acap)."""


class ReplyError(AcapError, ValueError):
    """A reply cannot be built as asked: its text would break On Request §5 or §6 (no
    personEntry, reads as if the information did not exist, says a deferred action is
    done), or its arguments do not fit together (a Task id without a context id)."""


class KeyProblem(AcapError, ValueError):
    """A signing or verification key cannot be used. :attr:`hint` says what to do.

    Never carries key material in its message.
    """

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message, hint)


class KeyTextProblem(KeyProblem):
    """The key text itself cannot be read: not PEM, not a JWK, or numbers that make
    no valid key (a point not on its curve ...). The caller knows where the text
    came from (a key file, ``ACAP_SIGNING_KEY``) and says how to fix that place.
    """


class KeysUnavailable(AcapError):
    """A JWKS could not be read; ``str()`` says why in plain words, without its place
    (the caller names the place: the ``jku`` or ``--jwks``)."""


class SitePathError(AcapError, ValueError):
    """A URL cannot be a file under site/: not https, no host, a path that climbs out of
    its folder (``..``), or two different files for one path."""


class JsonTextError(AcapError, ValueError):
    """JSON text that cannot be read (RFC 8259).

    Attributes:
        message: what is wrong, in plain words (no position: see line and column).
        line, column: 1-based position of the fault, or ``None`` when the whole
            text is at fault (an empty file).
    """

    def __init__(self, message: str, line: int | None, column: int | None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class FetchError(AcapError):
    """A fetch failed.

    Attributes:
        url: the URL as given.
        reason: why, in plain words, without the URL (``"the host name was not
            found"``), for messages that name the URL elsewhere.
        hint: what to do about this cause (a redirect loop, the size limit, the
            deadline, a private address, TLS, DNS ...), or ``None``.

    ``str()`` is ``"<url>: <reason>"``, the URL named once.
    """

    def __init__(self, url: str, reason: str, hint: str | None = None) -> None:
        super().__init__(f"{url}: {reason}", hint)
        self.url = url
        self.reason = reason


class GitError(AcapError):
    """A git command failed. ``str()`` names what acap was doing and carries git's
    own message (its standard error) verbatim."""


class FileRefused(AcapError):
    """A file acap was asked to read or write and did not: not a regular file (a folder,
    a FIFO, a device such as ``/dev/zero``), larger than the limit for its kind, outside
    the folder it must lie in (a batch tenant's key file in another tenant's folder), or
    reached through a symbolic link acap does not follow (see :mod:`acap.load._files`).
    Judged before a byte is read or written, so that nothing hangs, grows without bound
    or lands outside its folder.

    Attributes:
        path: the file as named.
        reason: why, in plain words, without the path (``"it is a FIFO, not a regular
            file"``), for messages that name the file elsewhere.
        kind: what it is when it is not a regular file (``"a named pipe (FIFO)"``),
            else ``None``.
        outside: it lies outside the folder it must be in (links followed).
        link: the symbolic link acap refused to follow or write through, as a path
            inside the folder (``"templates/words"``), else ``None``.
        too_large: it is larger than the limit for its kind.
    """

    def __init__(self, path: str, reason: str, hint: str | None = None, *,
                 kind: str | None = None, outside: bool = False,
                 link: str | None = None, too_large: bool = False) -> None:
        super().__init__(f"{path}: {reason}", hint)
        self.path = path
        self.reason = reason
        self.kind = kind
        self.outside = outside
        self.link = link
        self.too_large = too_large


class FileChanged(AcapError):
    """A file is no longer the one acap looked at a moment before: someone changed,
    replaced or removed it, or put a file where acap found none (see
    :func:`acap.load.swap_file` and :func:`acap.load.move_file`). Nothing was moved.

    Attributes:
        path: the file as named.
        reason: what changed, in plain words, without the path (``"it changed"``).
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class TemplateRefused(AcapError):
    """A file of the operator's templates/ folder that acap does not read: not a regular
    file, or too large (see :class:`TemplateLinkOutside` for links leading out).

    Attributes:
        name: the template name asked for (``footer.html``).
        filename: its path inside templates/.
    """

    def __init__(self, name: str, filename: str, message: str | None = None) -> None:
        super().__init__(message or f"{filename} is not a template acap reads")
        self.name = name
        self.filename = filename


class TemplateLinkOutside(TemplateRefused):
    """A file of the operator's templates/ folder is a symbolic link (or lies under one)
    that leads out of that folder; acap does not follow it: whatever it points at (a
    key, a file of another project) would be published.

    Attributes:
        name: the template name asked for (``footer.html``).
        filename: the link's path inside templates/.
    """

    def __init__(self, name: str, filename: str) -> None:
        super().__init__(name, filename, f"{filename} leads out of the templates folder")
