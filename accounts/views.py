"""Pages about people: sign-up, guests, profiles and the leaderboard.

Log in, log out and password change are Django's own views with the site's templates
(``accounts/urls.py``). Logging in is throttled by django-axes (settings), and every
password check waits for one of the process's few hashing slots
(``guandan_site.throttle``); new guests are limited per client.
"""

import json

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import (
    LoginView,
    PasswordChangeView,
    PasswordResetConfirmView,
    PasswordResetView,
)
from django.http import HttpResponse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from guandan_site import throttle

from . import bots, deletion, export, selectors, services
from .forms import (
    BotForm,
    BotTicketForm,
    ClaimGuestForm,
    DeleteAccountForm,
    DisplayNameForm,
    EmailForm,
    SignUpForm,
    SitePasswordResetForm,
)
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


@throttle.limited("register", limit="GUANDAN_REGISTRATIONS_PER_HOUR", period=3600)
def sign_up(request):
    """Create a registered account and log in (at most so many a client an hour)."""
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
                    email=form.cleaned_data.get("email", ""),
                )
        except throttle.Busy:
            return _busy(request, "accounts/sign_up.html", {"form": form})
        except services.AccountError as error:
            form.add_error("email" if isinstance(error, services.EmailError) else "username", str(error))
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
@throttle.limited("register", limit="GUANDAN_REGISTRATIONS_PER_HOUR", period=3600)
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
                email=form.cleaned_data.get("email", ""),
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
    """The signed-in player's profile, where the display name and the email address (for
    password resets) can be changed."""
    if request.method == "POST" and "mute_talk" in request.POST:
        # Table talk: see and send no quick phrases at any table.
        services.set_mute_talk(user=request.user, muted=request.POST["mute_talk"] == "1")
        messages.success(request, _("Table talk setting saved."))
        return redirect("accounts:profile")
    action = request.POST.get("action", "name") if request.method == "POST" else None
    form = DisplayNameForm(request.POST if action == "name" else None,
                           initial={"display_name": request.user.profile.display_name})
    email_form = EmailForm(request.POST if action == "email" else None, initial={"email": request.user.email})
    if action == "name" and form.is_valid():
        try:
            services.rename(user=request.user, display_name=form.cleaned_data["display_name"])
        except services.AccountError as error:
            form.add_error("display_name", str(error))
        else:
            messages.success(request, _("Display name saved."))
            return redirect("accounts:profile")
    if action == "email" and email_form.is_valid():
        try:
            services.set_email(user=request.user, email=email_form.cleaned_data["email"])
        except services.AccountError as error:
            email_form.add_error("email", str(error))
        else:
            messages.success(request, _("Email address saved.") if request.user.email else _("Email address removed."))
            return redirect("accounts:profile")
    context = _profile_context(request.user, request)
    context.update({"form": form, "email_form": email_form, "is_own": True})
    return render(request, "accounts/profile.html", context)


def _data_page(request, delete_form, status=200):
    return render(request, "accounts/data.html", {
        "delete_form": delete_form, "profile": selectors.profile_of(request.user),
        "retire_days": deletion.RETIRE_FOR.days,
    }, status=status)


@login_required
def my_data(request):
    """The player's own data: download it all, or delete the account."""
    return _data_page(request, DeleteAccountForm(user=request.user))


@login_required
@throttle.limited("data_export", limit="GUANDAN_DATA_EXPORTS_PER_HOUR", period=3600, per="user", methods=("GET",))
def download_my_data(request):
    """Everything the site holds about the player, as a JSON file (``accounts.export``)."""
    data = export.export_for(request.user)
    response = HttpResponse(json.dumps(data, indent=1, ensure_ascii=False), content_type="application/json; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d")
    response["Content-Disposition"] = f'attachment; filename="guandan-data-{request.user.pk}-{stamp}.json"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
@throttle.limited("delete_account", limit="GUANDAN_DELETE_ATTEMPTS_PER_15_MINUTES", period=900, per="user")
def delete_my_account(request):
    """Delete the account once confirmed with the password (a guest, who has none, ticks
    the box): ``accounts.deletion``. The player is signed out and sent to the lobby."""
    form = DeleteAccountForm(request.POST, user=request.user)
    try:
        with throttle.hashing_slot():  # the password is checked
            valid = form.is_valid()
    except throttle.Busy:
        messages.error(request, _("The site is busy checking passwords; try again in a moment."))
        return _data_page(request, form, status=503)
    if not valid:
        return _data_page(request, form, status=400)
    user = request.user
    logout(request)
    deletion.delete_account(user=user)
    messages.success(request, _("Your account was deleted. The deals you played stay in their replays as "
                                "\"Deleted player\"."))
    return redirect("games:lobby")


@method_decorator(throttle.limited("password_reset", limit="GUANDAN_PASSWORD_RESETS_PER_HOUR", period=3600),
                  name="dispatch")
class SitePasswordResetView(PasswordResetView):
    """Django's password reset, in the site's look and the reader's language; at most so
    many a client an hour (each sends an email). The page says the same whether or not
    an account has that address."""

    template_name = "accounts/password_reset.html"
    form_class = SitePasswordResetForm
    email_template_name = "accounts/password_reset_email.txt"
    subject_template_name = "accounts/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")


class SitePasswordResetConfirmView(PasswordResetConfirmView):
    """Django's new-password form reached from the emailed link; the new password is
    hashed in one of the process's hashing slots."""

    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")

    def post(self, request, *args, **kwargs):
        try:
            with throttle.hashing_slot():
                return super().post(request, *args, **kwargs)
        except throttle.Busy:
            return _busy(request, self.template_name, self.get_context_data(form=self.get_form()))


def _endpoint(request) -> str:
    """The bot endpoint's address as programs reach it (wss when the site is served over TLS)."""
    return request.build_absolute_uri("/ws/bot/").replace("http", "ws", 1)


@login_required
def my_bots(request):
    """The player's bot accounts: create one, rotate its token or revoke it (a token is
    shown on the response that made it, never again), see where each sits, and get a
    connection line for a table and seat chosen here: a single-use ticket URL for
    programs that take only a URL, and the line for programs that send the token in the
    Authorization header (docs/bot-protocol.md)."""
    from games.botapi import tickets
    from games.tables.policies import TableError

    action = request.POST.get("action") if request.method == "POST" else None
    form = BotForm(request.POST if action == "create" else None)
    own_tables = tickets.tables_for(request.user)
    ticket_form = BotTicketForm(request.POST if action == "ticket" else None,
                                bots=BotAccount.objects.filter(owner=request.user, revoked_at__isnull=True,
                                                               approved=True),
                                tables=own_tables)
    new_token = new_bot = connection = None
    if action in ("revoke", "rotate"):
        try:
            bot_id = int(request.POST.get("bot", ""))
            if action == "revoke":
                bot = bots.revoke_bot(owner=request.user, bot_id=bot_id)
            else:
                rotated = bots.rotate_token(owner=request.user, bot_id=bot_id)
                new_bot, new_token = rotated.bot, rotated.token
        except (ValueError, services.AccountError) as error:
            messages.error(request, str(error) if isinstance(error, services.AccountError) else _("You have no such bot."))
            return redirect("accounts:bots")
        if action == "revoke":
            messages.success(request, _("%(name)s was revoked; its token no longer connects.") % {"name": bot.name})
            return redirect("accounts:bots")
        messages.success(request, _("%(name)s has a new token; the old one no longer connects.") % {"name": new_bot.name})
    elif action == "create" and form.is_valid():
        try:
            created = bots.create_bot(owner=request.user, name=form.cleaned_data["name"])
        except services.AccountError as error:
            form.add_error("name", str(error))
        else:
            new_bot, new_token = created.bot, created.token
            form = BotForm()
    elif action == "ticket" and ticket_form.is_valid():
        table = ticket_form.cleaned_data["table"]
        seat = int(ticket_form.cleaned_data["seat"])
        try:
            issued = tickets.issue_ticket(owner=request.user, bot_id=ticket_form.cleaned_data["bot"].pk,
                                          table_id=table.pk, position=seat - 1)
        except TableError as error:
            ticket_form.add_error(None, error.message)
        else:
            query = f"table={table.pk}&seat={seat}" + (f"&code={table.invite_code}" if table.invite_code else "")
            connection = {
                "bot": issued.ticket.bot, "table": table, "seat": seat,
                "ticket_url": f"{_endpoint(request)}?ticket={issued.secret}",
                "header_url": f"{_endpoint(request)}?{query}",
                "client_line": (f"GUANDAN_BOT_TOKEN=… python -m games.bots.client --url {_endpoint(request)} "
                                f"--table {table.pk} --seat {seat}"
                                + (f" --code {table.invite_code}" if table.invite_code else "") + " --bot expert"),
                "expires_at": issued.ticket.expires_at,
            }
    context = {
        "form": form,
        "ticket_form": ticket_form,
        "bots": _bots_with_seats(request.user),
        "own_tables": own_tables,
        "new_bot": new_bot,
        "new_token": new_token,
        "connection": connection,
        "is_guest": selectors.profile_of(request.user).is_guest,
        "endpoint": _endpoint(request),
    }
    response = render(request, "accounts/bots.html", context)
    if new_token or connection:
        response["Cache-Control"] = "no-store"  # shown once: keep the token and the ticket out of caches
    return response


def _bots_with_seats(owner) -> list[BotAccount]:
    """The owner's bots, each with ``current_seat``: where it sits now (an open table), or None."""
    from games.models import Seat, Table

    seats = {
        seat.user_id: seat
        for seat in Seat.objects.filter(
            user__bot_account__owner=owner, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING],
        ).select_related("table")
    }
    found = list(BotAccount.objects.filter(owner=owner).select_related("user"))
    for bot in found:
        bot.current_seat = seats.get(bot.user_id)
    return found


@require_POST
def set_language(request):
    """The header's switcher: Django's ``set_language`` (the language cookie, then back to
    ``next``), and for a signed-in player the choice saved on the profile as well."""
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        services.set_language(user=request.user, language=language)
    return response
