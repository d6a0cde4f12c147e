"""The nginx recipe logs paths, never query strings: a bot program's single-use ticket
in ``/ws/bot/?ticket=...`` (docs/bot-protocol.md) stays out of the access log. nginx runs
with the recipe's own logging and locations (deploy/nginx/) in front of no server: the
request fails, and is logged all the same."""

from __future__ import annotations

import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from .processes import ROOT, Stack

needs_nginx = pytest.mark.skipif(not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()),
                                 reason="needs nginx (.ci/run installs it)")


@needs_nginx
def test_the_access_log_holds_paths_without_their_query_strings():
    secret = "tkt-never-logged-4f9a"
    stack = Stack(Path(tempfile.mkdtemp(prefix="nginx-logs-")))
    try:
        stack.start_nginx()
        for path in (f"/ws/bot/?ticket={secret}", f"/accounts/login/?next=/{secret}/"):
            with socket.create_connection(("127.0.0.1", stack.nginx_port), timeout=10) as conn:
                conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                             "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n".encode())
                conn.recv(4096)
        log = stack.logs / "nginx-access.log"
        for _ in range(50):
            if log.exists() and log.read_text().count("\n") >= 2:
                break
            time.sleep(0.1)
        text = log.read_text()
        assert '"GET /ws/bot/ HTTP/1.1"' in text and '"GET /accounts/login/ HTTP/1.1"' in text, text
        assert secret not in text and "ticket" not in text
    finally:
        for process in [stack.nginx]:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def test_the_recipe_logs_the_site_only_that_way():
    conf = (ROOT / "deploy/nginx/guandan.conf").read_text()
    logging = (ROOT / "deploy/nginx/guandan-logging.conf").read_text()
    for variable in ("$request ", "$request_uri", "$args", "$query_string", "$is_args"):
        assert variable not in logging
    access_logs = [line.strip() for line in conf.splitlines() if line.strip().startswith("access_log")]
    assert access_logs and all(line.endswith("guandan_paths;") for line in access_logs)
    locations = (ROOT / "deploy/nginx/guandan-locations.conf").read_text()
    assert all(line.strip() in ("access_log off;",) for line in locations.splitlines()
               if line.strip().startswith("access_log"))
