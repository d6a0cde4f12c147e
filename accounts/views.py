"""Pages about people: sign-up, guests, profiles and the leaderboard.

Log in, log out and password change are Django's own views with the site's templates
(``accounts/urls.py``). Logging in is throttled by django-axes (settings), and every
password check waits for one of the process's few hashing slots
(``guandan_site.throttle``); new guests are limited per client.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, PasswordChangeView
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from guandan_site import throttle

from . import bots, selectors, services
from .forms import BotForm, ClaimGuestForm, DisplayNameForm, SignUpForm
from .models import BotAccount

AUTH_BACKEND = "django.contrib.auth.backends.ModelBackend"


def _next_url(request, default="games:lobby"):
    candidate = request.POST.get("next") or request.GET.get("next")
    if candidate and url_has_allowed_host_and_scheme(candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return candidate
    return reverse_lazy(default)


def _busy(request, template, context):
    messages.error(request, _("The site is busy checking passwords; try again in a moment."))
    return render(request, template, context, status=503)


class SiteLoginView(LoginView):
    """Django's login with the site's template; the password check (a deliberately slow
    hash) waits for a hashing slot of this process, so a burst of logins queues instead
    of slowing every table served here. django-axes refuses a locked-out client first."""

    template_name = "accounts/login.html"

    def post(self, request, *args, **kwargs):
        try:
            with throttle.hashing_slot():
                return super().post(request, *args, **kwargs)
        except throttle.Busy:
            return _busy(request, self.template_name, self.get_context_data(form=self.get_form()))


def sign_up(request):
    """Create a registered account and log in."""
    if request.user.is_authenticated:
        return redirect("games:lobby")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with throttle.hashing_slot():  # the new password is hashed
                user = services.sign_up(
                    username=form.cleaned_data["username"],
                    password=form.cleaned_data["password1"],
                    display_name=form.cleaned_data["display_name"],
                )
        except throttle.Busy:
            return _busy(request, "accounts/sign_up.html", {"form": form})
        except services.AccountError as error:
            form.add_error("username", str(error))
        else:
            login(request, user, backend=AUTH_BACKEND)
            messages.success(request, _("Welcome, %(name)s! Pick a table to play.") % {"name": user.profile.display_name})
            return redirect(_next_url(request))
    return render(request, "accounts/sign_up.html", {"form": form})


@require_POST
def play_as_guest(request):
    """Start playing at once as a guest (practice and friend tables, no career points,
    R10.1); the guest can register later and keep everything."""
    if not request.user.is_authenticated:
        if not throttle.allow_new_guest(request):
            messages.error(request, _("Many guests were created from your network just now; wait a few minutes and try again."))
            return redirect(_next_url(request))
        user = services.create_guest()
        login(request, user, backend=AUTH_BACKEND)
        messages.info(
            request,
            _("You are playing as %(name)s. Guests play practice and friend tables; register any time to keep your games.")
            % {"name": user.profile.display_name},
        )
    return redirect(_next_url(request))


@login_required
def claim_guest(request):
    """Turn the guest account into a registered one, keeping its history."""
    profile = selectors.profile_of(request.user)
    if not profile.is_guest:
        return redirect("accounts:profile")
    form = ClaimGuestForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.claim_guest(
                user=request.user,
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                display_name=form.cleaned_data["display_name"],
            )
        except services.AccountError as error:
            form.add_error(None, str(error))
        else:
            # The password changed: keep this session logged in.
            update_session_auth_hash(request, user)
            messages.success(request, _("Your account is registered. Your games stay with it."))
            return redirect("accounts:profile")
    return render(request, "accounts/claim.html", {"form": form})


class SitePasswordChangeView(PasswordChangeView):
    """Django's password change; a guest has no password yet and registers instead."""

    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change_done")

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_usable_password():
            return redirect("accounts:claim")
        return super().dispatch(request, *args, **kwargs)


def _profile_context(user, request):
    from games.tables import selectors as table_selectors
    from games.tables.selectors import invitations

    profile = selectors.profile_of(user)
    # A friend table's matches are listed only to who may see them (R10.3).
    viewer = table_selectors.viewer_for(request.user, invited_table_ids=invitations(request.session).keys())
    matches = [row for row in selectors.recent_matches(user) if table_selectors.may_see_match(row["match"], viewer)]
    return {
        "shown_user": user,
        "profile": profile,
        "recent_matches": matches,
        "ledger": selectors.ledger_of(user, limit=10),
    }


@login_required
def my_profile(request):
    """The signed-in player's profile, where the display name can be changed."""
    form = DisplayNameForm(request.POST or None, initial={"display_name": request.user.profile.display_name})
    if request.method == "POST" and form.is_valid():
        try:
            services.rename(user=request.user, display_name=form.cleaned_data["display_name"])
        except services.AccountError as error:
            form.add_error("display_name", str(error))
        else:
            messages.success(request, _("Display name saved."))
            return redirect("accounts:profile")
    context = _profile_context(request.user, request)
    context.update({"form": form, "is_own": True})
    return render(request, "accounts/profile.html", context)


@login_required
def my_bots(request):
    """The player's bot accounts: create one (its token is shown on this response only,
    never again), see which are approved, revoke one (docs/bot-protocol.md)."""
    form = BotForm(request.POST or None)
    new_token = None
    new_bot = None
    if request.method == "POST" and request.POST.get("revoke"):
        try:
            bot = bots.revoke_bot(owner=request.user, bot_id=int(request.POST["revoke"]))
        except (ValueError, services.AccountError) as error:
            messages.error(request, str(error) if isinstance(error, services.AccountError) else _("You have no such bot."))
        else:
            messages.success(request, _("%(name)s was revoked; its token no longer connects.") % {"name": bot.name})
        return redirect("accounts:bots")
    if request.method == "POST" and form.is_valid():
        try:
            created = bots.create_bot(owner=request.user, name=form.cleaned_data["name"])
        except services.AccountError as error:
            form.add_error("name", str(error))
        else:
            new_bot, new_token = created.bot, created.token
            form = BotForm()
    context = {
        "form": form,
        "bots": BotAccount.objects.filter(owner=request.user).select_related("user"),
        "new_bot": new_bot,
        "new_token": new_token,
        "is_guest": selectors.profile_of(request.user).is_guest,
        "endpoint": request.build_absolute_uri("/ws/bot/").replace("http", "ws", 1),
    }
    response = render(request, "accounts/bots.html", context)
    if new_token:
        response["Cache-Control"] = "no-store"  # the token is shown once; keep it out of caches
    return response


def player_profile(request, username):
    """Anyone's public profile: name, career points, tier and recent matches."""
    user = get_object_or_404(get_user_model(), username=username, is_active=True)
    context = _profile_context(user, request)
    context["is_own"] = request.user == user
    return render(request, "accounts/profile.html", context)


@require_POST
def set_language(request):
    """The header's switcher: Django's ``set_language`` (the language cookie, then back to
    ``next``), and for a signed-in player the choice saved on the profile as well."""
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        services.set_language(user=request.user, language=language)
    return response


def leaderboard(request):
    """Registered players by career points (R10.6)."""
    return render(request, "accounts/leaderboard.html", {"profiles": selectors.leaderboard()})
