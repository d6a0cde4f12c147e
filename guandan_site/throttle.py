"""Per-client limits on what costs the site real work: creating guests, starting practice
tables, hashing passwords.

A client is its IP address: ``REMOTE_ADDR``, or behind the site's own TLS proxy
(``BEHIND_TLS_PROXY``) the address that proxy appended last to ``X-Forwarded-For`` (the
entries before it come from the client and prove nothing). Counts live in Django's cache
(Redis in production, so every process shares them; this process's memory in the
embedded mode) in fixed windows; when the cache is away the limit is not applied rather
than refusing everybody.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)


def client_ip(request) -> str | None:
    """The client's IP address as this site can trust it (also used by django-axes);
    None when the request has none (a request built in code)."""
    meta = request.META
    if getattr(settings, "SECURE_PROXY_SSL_HEADER", None):
        forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if forwarded and _is_ip(forwarded[-1]):
            return forwarded[-1]
    return meta.get("REMOTE_ADDR") or None


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def allow(request, scope: str, *, limit: int, period: int) -> bool:
    """Count one more ``scope`` for this client; False once it made ``limit`` of them in
    the current ``period`` seconds."""
    window = int(time.time() // period)
    key = f"throttle:{scope}:{client_ip(request) or 'unknown'}:{window}"
    try:
        if cache.add(key, 1, timeout=period + 1):
            return True
        return cache.incr(key) <= limit
    except Exception:  # the cache is away: do not lock everybody out
        log.warning("throttle %s: the cache did not answer; not limiting", scope, exc_info=True)
        return True


def allow_new_guest(request) -> bool:
    """Guests are created per client at most ``GUANDAN_GUESTS_PER_10_MINUTES`` times in
    ten minutes (each is a user, a profile and a session)."""
    return allow(request, "guest", limit=settings.GUANDAN_GUESTS_PER_10_MINUTES, period=600)


# Password hashing (PBKDF2, hundreds of milliseconds of CPU each) runs on the request's own
# thread, never on the event loop; at most this many at once per process, so a burst of
# logins queues here instead of taking every core from the tables.
_HASHING = threading.BoundedSemaphore(settings.GUANDAN_HASHING_THREADS)
HASHING_WAIT = 10.0  # seconds a login waits for its turn before "busy"


class Busy(Exception):
    """Too many password checks are waiting in this process."""


@contextmanager
def hashing_slot():
    if not _HASHING.acquire(timeout=HASHING_WAIT):
        raise Busy
    try:
        yield
    finally:
        _HASHING.release()
