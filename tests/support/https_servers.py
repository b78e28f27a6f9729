"""Real local web servers for the fetch tests: HTTPS with a test CA made here, plain HTTP,
and a server that answers one byte at a time. Every server records the requests it got,
so a test can assert that none reached it.

The CA and certificates are generated with ``cryptography`` for each test session (no
key is committed); :func:`trust` points ``SSL_CERT_FILE`` at the CA, which Python's
default TLS context reads (OpenSSL's default verify paths).
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

#: One answer: (status, headers, body).
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class LocalCA:
    """A CA and one server certificate for ``localhost`` and 127.0.0.1 (files)."""

    ca_file: Path
    cert_file: Path
    key_file: Path


def make_ca(folder: Path) -> LocalCA:
    """A new CA and a leaf certificate for localhost, 127.0.0.1 and ::1, in ``folder``."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "acap test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True,
                                       crl_sign=True, content_commitment=False,
                                       key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False,
                                       decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    leaf = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
            .issuer_name(ca_name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.IPAddress(ipaddress.ip_address("::1"))]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    out = LocalCA(folder / "ca.pem", folder / "server.pem", folder / "server-key.pem")
    out.ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    out.cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    out.key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                               serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
    out.key_file.chmod(0o600)
    return out


@dataclass
class Server:
    """A running local server.

    Attributes:
        base: ``https://127.0.0.1:PORT`` (or ``http://``).
        requests: the paths asked for, in order.
        routes: path -> :data:`Answer`, or a function of the server giving one.
    """

    base: str
    requests: list[str] = field(default_factory=list)
    routes: dict[str, Answer | Callable[[], Answer]] = field(default_factory=dict)

    def url(self, path: str) -> str:
        """The URL of ``path`` on this server."""
        return self.base + path

    def answer(self, path: str, body: bytes, status: int = 200,
               content_type: str = "application/json", **headers: str) -> str:
        """Serve ``body`` at ``path``; returns its URL."""
        self.routes[path] = (status, {"Content-Type": content_type, **headers}, body)
        return self.url(path)

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        """Answer ``path`` with a redirect to ``location`` (the body is a decoy a fetch
        must never read); returns its URL."""
        self.routes[path] = (status, {"Location": location, "Content-Type": "application/json"},
                             b'{"refusedDocumentMember": "must never be echoed"}')
        return self.url(path)


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requests.append(self.path)
            route = server.routes.get(self.path)
            if route is None:
                status, headers, body = 404, {"Content-Type": "text/plain"}, b"not here"
            else:
                status, headers, body = route() if callable(route) else route
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(ca: LocalCA | None = None, host: str = "127.0.0.1") -> Iterator[Server]:
    """A local server on a free port: HTTPS with ``ca``'s certificate, else plain HTTP."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server = Server("")
    httpd_cls = type("Httpd", (ThreadingHTTPServer,), {"address_family": family})
    httpd = httpd_cls((host, 0), _handler(server))
    if ca is not None:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(ca.cert_file, ca.key_file)
        httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    shown = f"[{host}]" if ":" in host else host
    server.base = f"{'https' if ca else 'http'}://{shown}:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


@contextmanager
def dripping(interval: float = 0.5, total: int = 200) -> Iterator[tuple[str, list[int]]]:
    """A plain HTTP server that sends its headers, then one byte of its body every
    ``interval`` seconds (``total`` bytes announced). Yields (URL, [bytes sent so far]);
    it stops by itself when the client goes or the body is sent."""
    listener = socket.create_server(("127.0.0.1", 0))
    sent = [0]
    stop = threading.Event()

    def run() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                try:
                    conn.recv(4096)
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                 + f"Content-Length: {total}\r\n\r\n".encode())
                    for _ in range(total):
                        if stop.is_set():
                            return
                        conn.sendall(b" ")
                        sent[0] += 1
                        time.sleep(interval)
                except OSError:
                    continue

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/card.json", sent
    finally:
        stop.set()
        thread.join(5)
        listener.close()
