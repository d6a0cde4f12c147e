"""A signed-in player's language follows the player (issue: the profile's choice).

``LocaleMiddleware`` picks the language from the language cookie or the browser's
Accept-Language. For a signed-in player whose profile names a language, that choice
wins, on every device: the request is answered in it, and the language cookie is set to
it so the table's socket (which reads the cookie, ``games.tables.consumers``) agrees.
"""

from django.conf import settings
from django.utils import translation


class ProfileLanguageMiddleware:
    """Put after ``AuthenticationMiddleware`` (it reads ``request.user``) and after
    ``LocaleMiddleware`` (it overrides what that one chose)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        wanted = profile_language(request.user)
        if wanted and wanted != getattr(request, "LANGUAGE_CODE", None):
            translation.activate(wanted)
            request.LANGUAGE_CODE = wanted
        response = self.get_response(request)
        if wanted and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != wanted:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME, wanted,
                max_age=settings.LANGUAGE_COOKIE_AGE, path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN, secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY, samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response


def profile_language(user) -> str:
    """The language saved on a signed-in player's profile ("" when none or signed out)."""
    if user is None or not user.is_authenticated:
        return ""
    profile = getattr(user, "profile", None)
    language = getattr(profile, "language", "") or ""
    return language if language in dict(settings.LANGUAGES) else ""
