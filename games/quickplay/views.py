"""Quick play pages (R10.9): join a tier's queue, leave it, the waiting page, and a
friend's invitation to queue together as partners.

The forms post with htmx where the page has it (the answer is the panel, or the slim
bar, drawn afresh) and plainly otherwise (the answer is a redirect)."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.quickplay import selectors, services
from games.quickplay.models import QueueEntry
from games.quickplay.services import QueueError
from guandan_site import throttle


def _back(request, default: str):
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                                  require_https=request.is_secure()):
        return redirect(target)
    return redirect(default)


def _panel(request, *, error: str = ""):
    """The player's panel (or, for ``?view=bar``, the slim bar) as it is now, with a
    refusal above it: the answer to an htmx form."""
    state = selectors.state_of(request.user)
    state["error"] = error
    template = "quickplay/_bar.html" if request.GET.get("view") == "bar" else "quickplay/_panel.html"
    return HttpResponse(render_to_string(template, {"qp": state}, request=request))


def _refused(request, error: QueueError):
    if error.table is not None:  # seated at a match in progress: back to it (R10.9)
        messages.error(request, error.message)
        url = reverse("games:table", args=[error.table.pk])
        if request.htmx:
            return HttpResponse(status=204, headers={"HX-Redirect": url})
        return redirect(url)
    if request.htmx:
        return _panel(request, error=error.message)
    messages.error(request, error.message)
    return None


@login_required
def play(request):
    """The quick-play page: the tiers to choose from, or the waiting panel (GET); join
    the chosen tier's queue (POST)."""
    if request.method == "POST":
        if not throttle.allow(request, "quickplay", limit=settings.GUANDAN_QUICKPLAY_PER_10_MINUTES, period=600):
            error = QueueError(_("R10.9: too many quick-play requests from your address; wait a few minutes."))
            return _refused(request, error) or redirect("quickplay:play")
        try:
            services.join(user=request.user, tier=request.POST.get("tier", ""))
        except QueueError as error:
            return _refused(request, error) or _back(request, reverse("quickplay:play"))
        return _panel(request) if request.htmx else redirect("quickplay:play")
    state = selectors.state_of(request.user)
    if state["goto"] is not None:
        return redirect("games:table", state["goto"].pk)
    return render(request, "quickplay/play.html", {"qp": state})


@login_required
@require_POST
def cancel(request):
    """Leave the queue (R10.9)."""
    left = services.leave(user=request.user)
    if request.htmx:
        return _panel(request)
    if left:
        messages.info(request, _("You left the quick-play queue."))
    return _back(request, reverse("quickplay:play"))


def invite(request, code: str):
    """A friend's invitation to quick play as partners: who invites, at which tier, and
    a button to join them (POST)."""
    host = QueueEntry.objects.filter(invite_code=(code or "").strip().upper()).select_related("user__profile").first()
    if request.method == "POST" and request.user.is_authenticated:
        try:
            services.join_as_partner(user=request.user, code=code)
        except QueueError as error:
            return _refused(request, error) or redirect("quickplay:invite", code)
        return redirect("quickplay:play")
    waiting = host is not None and host.status == QueueEntry.Status.WAITING
    own = waiting and request.user.is_authenticated and host.user_id == request.user.pk
    return render(request, "quickplay/invite.html", {"host": host, "waiting": waiting, "own": own, "code": code})
