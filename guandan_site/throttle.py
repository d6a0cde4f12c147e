"""Limits on what costs the site real work per request: creating accounts and guests,
starting practice tables, password resets, data exports, deal analyses, hashing
passwords.

A client is its IP address: ``REMOTE_ADDR``, or behind the site's own TLS proxy
(``BEHIND_TLS_PROXY``) the address that proxy appended last to ``X-Forwarded-For`` (the
entries before it come from the client and prove nothing); a player is a signed-in user.
Counts live in Django's cache (Redis in production, so every process shares them; this
process's memory in the embedded mode) in fixed windows; when the cache is away the limit
is not applied rather than refusing everybody.

A view is limited with one line::

    @throttle.limited("quick_play", limit="GUANDAN_QUICK_PLAYS_PER_MINUTE", period=60, per="user")

(``limit`` a number or the name of a setting, read at each request); beyond it the view
answers 429 with the site's page saying when to try again (``templates/throttled.html``).
"""

from __future__ import annotations

import ipaddress
import logging
import threading
import time
from contextlib import contextmanager
from functools import wraps

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


def allow_key(scope: str, who: str, *, limit: int, period: int) -> bool:
    """Count one more ``scope`` for ``who`` (a client address, ``user:<id>``...); False
    once ``who`` made ``limit`` of them in the current ``period`` seconds."""
    window = int(time.time() // period)
    key = f"throttle:{scope}:{who}:{window}"
    try:
        if cache.add(key, 1, timeout=period + 1):
            return limit >= 1
        return cache.incr(key) <= limit
    except Exception:  # the cache is away: do not lock everybody out
        log.warning("throttle %s: the cache did not answer; not limiting", scope, exc_info=True)
        return True


def allow(request, scope: str, *, limit: int, period: int) -> bool:
    """Count one more ``scope`` for this client; False once it made ``limit`` of them in
    the current ``period`` seconds."""
    return allow_key(scope, client_ip(request) or "unknown", limit=limit, period=period)


def allow_user(user, scope: str, *, limit: int, period: int) -> bool:
    """Count one more ``scope`` for this signed-in player (by user id)."""
    return allow_key(scope, f"user:{user.pk}", limit=limit, period=period)


def seconds_left(period: int) -> int:
    """Seconds until the current window of ``period`` seconds ends."""
    return max(1, int(period - time.time() % period))


def _limit_of(limit: int | str) -> int:
    return int(getattr(settings, limit)) if isinstance(limit, str) else int(limit)


def limited(scope: str, *, limit: int | str, period: int, per: str = "client", methods=("POST",)):
    """A view decorator: at most ``limit`` requests of ``methods`` (forms: their POST)
    per ``period`` seconds per client address (``per="client"``) or per signed-in player
    (``per="user"``; a signed-out client counts by its address). Beyond it: 429 with the
    site's page and ``Retry-After``; the view is not run, so nothing changes."""
    if per not in ("client", "user"):
        raise ValueError("per is 'client' or 'user'")

    def decorate(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method in methods:
                user = getattr(request, "user", None)
                if per == "user" and user is not None and user.is_authenticated:
                    allowed = allow_user(user, scope, limit=_limit_of(limit), period=period)
                else:
                    allowed = allow(request, scope, limit=_limit_of(limit), period=period)
                if not allowed:
                    return too_many(request, period)
            return view(request, *args, **kwargs)
        return wrapped
    return decorate


def too_many(request, period: int):
    """The 429 page: how long until the limit lifts."""
    from django.shortcuts import render

    wait = seconds_left(period)
    response = render(request, "throttled.html", {"minutes": max(1, round(wait / 60)), "seconds": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


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
