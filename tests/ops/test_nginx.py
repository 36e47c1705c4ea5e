"""Debian's nginx with deploy/nginx.conf in front of gunicorn and uvicorn, as production
runs them: pages and the API through it, the streams unbuffered, the anonymous live
polls (the page's and the standings API's) micro-cached and the rest of them sent to the
live pool (a gunicorn of their own), static files by their hashed names kept for a
year, the client's address passed on (so the throttles and the lock-out see each
client), and X-Forwarded-Proto written by nginx alone."""

import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
from contextlib import ExitStack, contextmanager
from html import unescape
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.test_wsgi import GUNICORN, UVICORN, free_port, prepared

ROOT = Path(__file__).resolve().parent.parent.parent
NGINX = Path("/usr/sbin/nginx")
sys.path.insert(0, str(ROOT / "deploy"))
from nginx import render  # noqa: E402

pytestmark = [
    pytest.mark.gunicorn,
    pytest.mark.skipif(not NGINX.exists(), reason="needs Debian's nginx (apt-get install nginx)"),
    pytest.mark.skipif(not GUNICORN.exists(), reason="gunicorn is not installed in this venv"),
    pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl for a certificate"),
    # Its stack keeps a SQLite database of its own whatever the suite runs on: CI's
    # PostgreSQL run, beside the SQLite one, would only repeat it.
    pytest.mark.skipif(
        os.environ.get("CI", "").lower() in {"1", "true", "yes"}
        and os.environ.get("DATABASE_URL", "").startswith("postgres"),
        reason="runs once in CI, in the SQLite run",
    ),
]

MAIN = """
daemon off;
worker_processes 1;
{user}
pid {prefix}/nginx.pid;
error_log {prefix}/error.log info;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {prefix}/access.log;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    include {prefix}/capicu.conf;
}}
"""


class Site:
    """The stack behind nginx: HTTPS and plain-HTTP ports, and the app's logs (the web
    pool's, and the live pool's)."""

    def __init__(self, https: int, plain: int, log: Path, live_log: Path):
        self.https, self.plain, self.log, self.live_log = https, plain, log, live_log
        self.context = ssl._create_unverified_context()

    def ask(self, method, path, *, body=None, headers=None, source="127.0.0.1", tls=True):
        """One request from ``source`` (a loopback address of its own): status,
        headers, body. Waited for up to a minute: the live pool runs at a lower priority,
        and on a machine busy with other test runs its first answer can take a while."""
        if tls:
            connection = http.client.HTTPSConnection(
                "127.0.0.1",
                self.https,
                context=self.context,
                timeout=60,
                source_address=(source, 0),
            )
        else:
            connection = http.client.HTTPConnection(
                "127.0.0.1", self.plain, timeout=60, source_address=(source, 0)
            )
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.headers, response.read()
        finally:
            connection.close()

    def lines(self, log: Path | None = None) -> list[dict]:
        """The app's JSON log lines so far (the web pool's unless ``log`` names another)."""
        found = []
        for line in (log or self.log).read_text().splitlines():
            if line.startswith("{"):
                found.append(json.loads(line))
        return found


@contextmanager
def nginx(prefix: Path, *, https: int, plain: int, web: int, live: int, events: int, static: Path):
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(prefix / "key.pem"),
            "-out",
            str(prefix / "cert.pem"),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    (prefix / "capicu.conf").write_text(
        render(
            web=f"127.0.0.1:{web}",
            live=f"127.0.0.1:{live}",
            events=f"127.0.0.1:{events}",
            listen=f"127.0.0.1:{https} ssl; listen 127.0.0.1:{plain}",
            server_name="127.0.0.1",
            static_root=str(static),
            cache_dir=str(prefix / "cache"),
            tls=f"ssl_certificate {prefix}/cert.pem; ssl_certificate_key {prefix}/key.pem;",
        )
    )
    user = "user root;" if os.geteuid() == 0 else ""  # the workers read the test's files
    (prefix / "nginx.conf").write_text(MAIN.format(prefix=prefix, user=user))
    command = [
        str(NGINX),
        "-p",
        str(prefix),
        "-c",
        str(prefix / "nginx.conf"),
        "-e",
        str(prefix / "error.log"),
    ]
    tested = subprocess.run([*command, "-t"], capture_output=True, text=True, timeout=30)
    assert tested.returncode == 0, tested.stderr
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        for _ in range(100):
            try:
                with socket_to(https):
                    break
            except OSError:
                assert server.poll() is None, (prefix / "error.log").read_text()
                time.sleep(0.1)
        yield
    finally:
        server.send_signal(signal.SIGQUIT)  # nginx's graceful stop
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def socket_to(port: int):
    import socket

    return socket.create_connection(("127.0.0.1", port), 1)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nginx")
    https, plain, web, live, events = (free_port() for _ in range(5))
    env = prepared(
        folder,
        BEHIND_PROXY="1",
        NUM_PROXIES="1",
        LIVE_STREAM="1",
        LIVE_STREAM_HEARTBEAT="1",
        LIVE_STREAM_TICK="0.5",
        LOG_FORMAT="json",
        LOG_REQUESTS="1",
        AXES_FAILURE_LIMIT="2",
        ANON_THROTTLE_RATE="3/min",
        CSRF_TRUSTED_ORIGINS=f"https://127.0.0.1:{https}",
        PYTHONUNBUFFERED="1",
    )
    env["SECURE_SSL_REDIRECT"] = "1"
    done = subprocess.run(
        [sys.executable, "manage.py", "load_demo"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    log, live_log = folder / "gunicorn.log", folder / "gunicorn-live.log"

    def gunicorn(port: int) -> list[str]:
        return [
            str(GUNICORN),
            "config.wsgi",
            "-w",
            "1",
            "-b",
            f"127.0.0.1:{port}",
            "--forwarded-allow-ips",
            "",
        ]

    uvicorn = [
        str(UVICORN),
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(events),
        "--no-proxy-headers",
        "--no-access-log",
    ]
    with ExitStack() as stack:
        stack.enter_context(started(gunicorn(web), web, env, log))
        # The live pool, niced as the Procfile starts it.
        stack.enter_context(started(["nice", "-n", "10", *gunicorn(live)], live, env, live_log))
        stack.enter_context(started(uvicorn, events, env, folder / "uvicorn.log"))
        (folder / "nginx").mkdir()
        stack.enter_context(
            nginx(
                folder / "nginx",
                https=https,
                plain=plain,
                web=web,
                live=live,
                events=events,
                static=folder / "static",
            )
        )
        yield Site(https, plain, log, live_log)


@contextmanager
def started(command: list[str], port: int, env: dict, log_path: Path):
    """A server until the block ends, once it accepts connections (its health check
    would be redirected to HTTPS: only the proxy says a request came over it)."""
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(150):
                try:
                    with socket_to(port):
                        break
                except OSError:
                    assert server.poll() is None, log_path.read_text()
                    time.sleep(0.2)
            yield
        finally:
            server.terminate()
            server.wait(timeout=20)


def running_event(site: Site) -> tuple[str, str, str]:
    """A running demo event's page, and its live poll's and stream's addresses."""
    status, _, body = site.ask("GET", "/api/v1/tournaments/")
    assert status == 200
    for event in json.loads(body)["results"]:
        if event["status"] != "running":
            continue
        page = f"/t/{event['slug']}/"
        status, _, html = site.ask("GET", page)
        found = re.search(r'id="live" hx-get="([^"]+)"[^>]*data-events="([^"]+)"', html.decode())
        if status == 200 and found:
            return page, unescape(found.group(1)), unescape(found.group(2))
    raise AssertionError("no running demo event shows its live poll")


def test_pages_and_the_api_come_through_nginx(site):
    status, headers, body = site.ask("GET", "/")
    assert status == 200
    assert b"capicu" in body
    assert len(headers["X-Request-ID"]) == 32  # nginx's $request_id, kept by capicu
    status, headers, body = site.ask("GET", "/api/v1/rulesets/cutthroat/")
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    status, _, body = site.ask("GET", "/health/")
    assert (status, json.loads(body)["status"]) == (200, "ok")


def test_the_request_id_is_nginxs_and_is_in_the_apps_log_line(site):
    status, headers, _ = site.ask("GET", "/players/", headers={"X-Request-ID": "forged-id-123"})
    request_id = headers["X-Request-ID"]
    assert request_id != "forged-id-123"
    for _ in range(20):
        lines = [line for line in site.lines() if line.get("request_id") == request_id]
        if lines:
            break
        time.sleep(0.1)
    (line,) = lines
    assert (line["path"], line["status"], line["client"]) == ("/players/", status, "127.0.0.1")


def test_static_files_keep_their_hashed_names_for_a_year(site):
    _, _, page = site.ask("GET", "/")
    stylesheet = re.search(rb'href="(/static/capicu\.[0-9a-f]{12}\.css)"', page)
    assert stylesheet, "the page links its stylesheet by its hashed name"
    status, headers, css = site.ask("GET", stylesheet.group(1).decode())
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert "max-age=31536000" in headers["Cache-Control"]
    assert "immutable" in headers["Cache-Control"]
    assert b"--accent" in css
    status, headers, _ = site.ask("GET", "/static/capicu.css")  # the unhashed name
    assert status == 200
    assert "immutable" not in headers["Cache-Control"]


def test_an_unchanged_anonymous_poll_is_answered_by_nginxs_micro_cache(site):
    _, poll, _ = running_event(site)
    first = site.ask("GET", poll)
    second = site.ask("GET", poll)
    assert first[0] in (200, 204) and second[0] == first[0]
    assert first[1]["X-Cache-Status"] in ("MISS", "EXPIRED")
    assert second[1]["X-Cache-Status"] == "HIT"
    assert second[2] == first[2]
    assert second[1]["X-Request-ID"] != first[1]["X-Request-ID"]  # each names its request
    # A signed-in visitor (a session cookie) always reaches capicu.
    signed = site.ask("GET", poll, headers={"Cookie": "sessionid=not-a-session"})
    assert signed[1]["X-Cache-Status"] == "BYPASS"


def logged(site: Site, request_id: str, log: Path) -> bool:
    """Whether the pool writing ``log`` answered the request (its line comes soon after)."""
    for _ in range(20):
        if any(line.get("request_id") == request_id for line in site.lines(log)):
            return True
        time.sleep(0.1)
    return False


def test_the_live_polls_that_reach_capicu_go_to_the_live_pool(site):
    """A poll the micro-cache does not answer is the live pool's; the pages and the API's
    writes stay with the web pool, whose workers the crowd then never holds."""
    _, poll, _ = running_event(site)
    status, headers, _ = site.ask("GET", poll, headers={"Cookie": "sessionid=not-a-session"})
    assert status in (200, 204) and headers["X-Cache-Status"] == "BYPASS"
    assert logged(site, headers["X-Request-ID"], site.live_log)
    assert not logged(site, headers["X-Request-ID"], site.log)
    status, headers, _ = site.ask("GET", "/players/")
    assert status == 200
    assert logged(site, headers["X-Request-ID"], site.log)
    assert not logged(site, headers["X-Request-ID"], site.live_log)


def test_a_signed_out_standings_poll_is_answered_by_nginxs_micro_cache(site):
    """The standings API's crowd: a second poller within the second is answered by nginx,
    a 304 for a poller holding the tag; a token's or a session's request goes through."""
    page, _, _ = running_event(site)
    path = f"/api/v1/tournaments/{page.split('/')[2]}/standings/"
    source = "127.0.0.7"  # an allowance of its own under the anonymous throttle
    first = site.ask("GET", path, source=source, headers={"Accept": "application/json"})
    second = site.ask("GET", path, source=source, headers={"Accept": "application/json"})
    assert first[0] == second[0] == 200
    assert first[1]["X-Cache-Status"] in ("MISS", "EXPIRED")
    assert second[1]["X-Cache-Status"] == "HIT"
    assert second[2] == first[2] and json.loads(second[2])["rows"]
    assert second[1]["ETag"] == first[1]["ETag"]
    held = {"Accept": "application/json", "If-None-Match": first[1]["ETag"]}
    unchanged = site.ask("GET", path, source=source, headers=held)
    assert (unchanged[0], unchanged[1]["X-Cache-Status"]) == (304, "HIT")
    assert unchanged[2] == b""
    # A phone that takes gzip has an answer kept of its own, compressed.
    gzipped = {"Accept": "application/json", "Accept-Encoding": "gzip"}
    zipped = [site.ask("GET", path, source=source, headers=gzipped) for _ in range(2)]
    assert [answer[1]["Content-Encoding"] for answer in zipped] == ["gzip", "gzip"]
    assert zipped[1][1]["X-Cache-Status"] == "HIT"
    assert first[1].get("Content-Encoding") is None
    for own in ({"Authorization": "Token not-a-token"}, {"Cookie": "sessionid=not-a-session"}):
        answer = site.ask("GET", path, source=source, headers={**held, **own})
        assert answer[1]["X-Cache-Status"] == "BYPASS"  # capicu answered it
        assert answer[0] in (200, 304, 401)


def test_a_stream_passes_each_event_before_the_response_ends(site):
    _, _, stream = running_event(site)
    connection = http.client.HTTPSConnection(
        "127.0.0.1", site.https, context=site.context, timeout=60
    )
    try:
        connection.request("GET", stream, headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        started = time.monotonic()
        received = b""
        # The heartbeat comes every second: three of them arrive while the stream is open.
        while received.count(b"\n:") + received.count(b"event: live") < 3:
            chunk = response.read1(4096)
            assert chunk, "the stream ended before its events came"
            received += chunk
        assert time.monotonic() - started < 10
        assert not response.isclosed()
        assert received.startswith(b"retry:")
    finally:
        connection.close()


def test_the_client_address_reaches_the_throttle(site):
    """Each client has its own allowance: a forged X-Forwarded-For changes nothing."""
    path = "/api/v1/rulesets/"
    forged = {"X-Forwarded-For": "192.0.2.50"}
    answers = [site.ask("GET", path, source="127.0.0.2", headers=forged)[0] for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert site.ask("GET", path, source="127.0.0.3")[0] == 200
    assert (
        site.ask("GET", path, source="127.0.0.2", headers={"X-Forwarded-For": "127.0.0.9"})[0]
        == 429
    )


def login(site: Site, username: str, password: str, source: str) -> int:
    status, headers, page = site.ask("GET", "/accounts/login/", source=source)
    assert status == 200
    cookie = SimpleCookie(headers["Set-Cookie"])["csrftoken"].value
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    status, _, _ = site.ask(
        "POST",
        "/accounts/login/",
        source=source,
        body=urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token}),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
            "Referer": f"https://127.0.0.1:{site.https}/accounts/login/",
        },
    )
    return status


def test_the_lock_out_counts_each_client_on_its_own(site):
    assert [login(site, "organizer", "wrong", "127.0.0.4") for _ in range(3)] == [200, 429, 429]
    assert login(site, "organizer", "wrong", "127.0.0.5") == 200  # another client: a try left


def test_only_nginx_says_whether_a_request_came_over_https(site):
    """Over plain HTTP a client claiming HTTPS is still sent to HTTPS: nginx wrote the
    header capicu believes."""
    for claim in ({}, {"X-Forwarded-Proto": "https"}):
        status, headers, _ = site.ask("GET", "/players/", tls=False, headers=claim)
        assert status == 301
        assert headers["Location"].startswith("https://")
    status, _, _ = site.ask("GET", "/players/", headers={"X-Forwarded-Proto": "http"})
    assert status == 200  # over HTTPS, a client's "http" is overwritten too
