"""The tournament pages: thin wrappers over ``selectors``/``present`` (reads) and
``services`` (writes). Private tournaments answer 404 to whoever may not see them."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.models import Table

from . import present, selectors, services
from .forms import TournamentForm
from .models import Entrant, Pairing, Round, Tournament
from .selectors import INVITATIONS_SESSION_KEY, invitations
from .services import TournamentError


def _visible(request, tournament_id) -> Tournament:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    if not selectors.may_see_tournament(tournament, request.user, invitations(request.session)):
        raise Http404(_("No such tournament."))
    return tournament


def _live_context(request, tournament):
    return present.live_context(tournament, request.user, invited=tournament.pk in invitations(request.session),
                                request_url=request.build_absolute_uri)


@require_GET
def tournament_list(request):
    """Tournaments: upcoming, running and finished ones the viewer may see."""
    tournaments = list(selectors.tournaments_for(request.user, invitations(request.session))[:100])
    return render(request, "tournaments/list.html", {
        "upcoming": [t for t in tournaments if t.status in (Tournament.Status.REGISTERING, Tournament.Status.CLOSED)],
        "running": [t for t in tournaments if t.status == Tournament.Status.RUNNING],
        "past": [t for t in tournaments if t.is_over],
        "can_create": request.user.is_authenticated and not request.user.profile.is_guest,
    })


@login_required
@require_http_methods(["GET", "POST"])
def create(request):
    """Create a tournament (R13.1): staff a public or private one, a player a private one."""
    form = TournamentForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = services.create_tournament(organiser=request.user, **form.cleaned_data)
        except TournamentError as error:
            form.add_error(None, error.message)
        else:
            return redirect("tournaments:detail", tournament_id=tournament.pk)
    return render(request, "tournaments/create.html", {"form": form}, status=400 if form.is_bound else 200)


@require_GET
def invitation(request, code):
    """A private tournament's invitation link (R13.1): remembered for this browser."""
    tournament = Tournament.objects.filter(invite_code=(code or "").strip().upper(), is_private=True).first()
    if tournament is None:
        messages.error(request, _("R13.1: no tournament has the invitation code %(code)s.") % {"code": code})
        return redirect("tournaments:list")
    stored = invitations(request.session) | {tournament.pk}
    request.session[INVITATIONS_SESSION_KEY] = sorted(stored)
    return redirect("tournaments:detail", tournament_id=tournament.pk)


@require_GET
def detail(request, tournament_id):
    """The tournament page: entrants, schedule, standings, the round's tables; live."""
    tournament = _visible(request, tournament_id)
    context = _live_context(request, tournament)
    if tournament.is_private and (request.user.is_staff or tournament.organiser_id == request.user.pk):
        context["invite_url"] = request.build_absolute_uri(reverse("tournaments:invitation",
                                                                   args=[tournament.invite_code]))
    context["can_cancel"] = request.user.is_authenticated and services.policies.refuse_cancel(
        tournament=tournament, user=request.user) is None
    return render(request, "tournaments/tournament.html", context)


@require_GET
def live(request, tournament_id):
    """``#trn-live`` alone (the page's refresh without a socket)."""
    tournament = _visible(request, tournament_id)
    return render(request, "tournaments/_live.html", _live_context(request, tournament))


def _step(request, tournament_id, step, success: str):
    """Run one step for the signed-in player; show its refusal (citing the rule) or its
    success, back on the tournament's page (an htmx request is told to go there: the
    page's forms post through htmx, as a fragment pushed over the socket carries no CSRF
    field)."""
    tournament = _visible(request, tournament_id)
    try:
        step(tournament)
    except TournamentError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, success)
    url = reverse("tournaments:detail", args=[tournament.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def register(request, tournament_id):
    """Register alone (R13.1); the page then shows the partner link to send."""
    return _step(request, tournament_id, lambda t: services.register(
        tournament=t, user=request.user, invited=t.pk in invitations(request.session)),
        _("You are registered. Send your partner the link below, or be paired when registration closes."))


@login_required
@require_POST
def withdraw(request, tournament_id):
    return _step(request, tournament_id, lambda t: services.withdraw(tournament=t, user=request.user),
                 _("You have withdrawn from the tournament."))


@login_required
@require_POST
def cancel(request, tournament_id):
    return _step(request, tournament_id, lambda t: services.cancel(tournament=t, user=request.user),
                 _("The tournament is cancelled."))


@require_http_methods(["GET", "POST"])
def partner(request, tournament_id, code):
    """A partner link (R13.1): a confirmation page; the POST joins the pair. Opening it
    also lets its holder see a private tournament."""
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    entrant = Entrant.objects.filter(tournament=tournament, partner_code=(code or "").strip().upper()).first()
    if entrant is None:
        messages.error(request, _("R13.1: this partner link is not valid (any more)."))
        if selectors.may_see_tournament(tournament, request.user, invitations(request.session)):
            return redirect("tournaments:detail", tournament_id=tournament.pk)
        return redirect("tournaments:list")
    if tournament.is_private:
        request.session[INVITATIONS_SESSION_KEY] = sorted(invitations(request.session) | {tournament.pk})
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('accounts:login')}?next={request.path}")
        return _step(request, tournament_id, lambda t: services.join_partner(tournament=t, user=request.user, code=code),
                     _("You are registered as a pair."))
    return render(request, "tournaments/partner.html", {"tournament": tournament, "entrant": entrant,
                                                        "name": present.pair_name(entrant)})


@require_GET
def board(request, tournament_id, round_number, number):
    """A board after its round (R13.6): each table's result, who held which cards, every
    replay of it."""
    tournament = _visible(request, tournament_id)
    round_ = Round.objects.filter(tournament=tournament, number=round_number).first()
    if round_ is None or not 1 <= number <= tournament.boards_per_round:
        raise Http404(_("No such board."))
    if round_.status != Round.Status.FINISHED:
        return render(request, "tournaments/board_hidden.html", {"tournament": tournament, "round": round_,
                                                                  "number": number}, status=403)
    context = present.board_context(tournament, round_number, number)
    if context is None:
        raise Http404(_("No such board."))
    context.update({"tournament": tournament, "round": round_})
    return render(request, "tournaments/board.html", context)


@require_GET
def entrant(request, tournament_id, number):
    """An entrant's page: their boards, scores and opponents."""
    tournament = _visible(request, tournament_id)
    found = Entrant.objects.filter(tournament=tournament, number=number, is_bot_pair=False).first()
    if found is None:
        raise Http404(_("No such pair."))
    return render(request, "tournaments/entrant.html", present.entrant_context(tournament, found))


@require_GET
def of_table(request, table_id):
    """From a tournament table to its tournament's page."""
    pairing = Pairing.objects.filter(table_id=table_id, table__kind=Table.Kind.TOURNAMENT).select_related("round").first()
    if pairing is None:
        raise Http404(_("No such table."))
    return redirect("tournaments:detail", tournament_id=pairing.round.tournament_id)
