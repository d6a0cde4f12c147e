"""Pages and fragments of the lobby and the table page: thin wrappers over
``games.tables.selectors`` (reads) and ``games.tables.services`` (writes)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.selectors import display_name_of
from games.live import selectors as live_selectors
from games.live.render import ViewerState, render_private, render_public, scene_for
from games.models import SEAT_COUNT, Table
from games.quickplay import selectors as quickplay_selectors
from games.quickplay import services as quickplay_services
from games.tables import selectors, services
from games.tables.forms import CreateTableForm, JoinByCodeForm, SeatForm
from games.tables.selectors import INVITATIONS_SESSION_KEY, invitations
from games.tables.services import TableError


def _viewer(request):
    return selectors.viewer_for(request.user, invited_table_ids=invitations(request.session).keys())


def _go(request, url):
    """Send the browser to ``url``: an htmx request is told to navigate there."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def _refused(request, error: TableError, url):
    messages.error(request, error.message)
    return _go(request, url)


def _lobby_context(request):
    return {"lobby": selectors.lobby_for(_viewer(request))}


@require_GET
def lobby(request):
    """The lobby: open tables by kind, live over a WebSocket, with the create and join forms."""
    context = _lobby_context(request)
    context["create_form"] = CreateTableForm(user=request.user)
    context["join_form"] = JoinByCodeForm()
    if request.user.is_authenticated:
        context["quickplay"] = quickplay_selectors.state_of(request.user)  # R10.9
    return render(request, "tables/lobby.html", context)


@require_GET
def lobby_tables(request):
    """The lobby's tables fragment alone (``#lobby-tables``), for a refresh without reload."""
    return render(request, "tables/_lobby_tables.html", _lobby_context(request))


@login_required
def create_table(request):
    """Create a table from the lobby form and go to it."""
    form = CreateTableForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            table = services.create_table(host=request.user, **form.cleaned_data)
        except TableError as error:
            form.add_error(None, error.message)
        else:
            return redirect("games:table", table_id=table.pk)
    return render(request, "tables/create_table.html", {"create_form": form}, status=400 if form.is_bound else 200)


def _visible_table(request, table_id):
    table = selectors.table_for_page(table_id)
    if table is None:
        raise Http404(_("No such table."))
    viewer = _viewer(request)
    if not selectors.may_see(table, viewer):
        # A friend table stays private to those it was shared with (R10.3).
        raise Http404(_("No such table."))
    return table, viewer


def _table_context(request, table_id):
    table, viewer = _visible_table(request, table_id)
    view = selectors.table_view(table, viewer)
    return {
        "view": view,
        "table": table,
        "match": selectors.latest_match(table),
        "invite_url": request.build_absolute_uri(reverse("games:join_invite", args=[table.invite_code]))
        if table.invite_code and (view.is_mine or view.is_host)
        else "",
    }


def _play_context(request, table) -> dict:
    """The live play area once a match has dealt: the public fragments and the viewer's
    own, rendered exactly as the table's WebSocket sends them (so a reload resumes)."""
    scene = scene_for(table)
    if scene is None:
        return {}
    position = scene.position_of(request.user.pk if request.user.is_authenticated else None)
    return {
        "play": True,
        "ws_url": f"/ws/tables/{table.pk}/",
        "seat_number": None if position is None else position + 1,
        "public_html": mark_safe(render_public(scene)),  # noqa: S308 (our own templates)
        "private_html": mark_safe(  # noqa: S308
            render_private(scene, position, ViewerState())
        ),
    }


@never_cache  # it may hold the viewer's hand: never kept by a browser or a shared cache
@require_GET
def table_page(request, table_id):
    """A table: the waiting room (seats and the host's controls), or the match in progress."""
    context = _table_context(request, table_id)
    context.update(_play_context(request, context["table"]))
    if request.user.is_authenticated:
        quickplay_services.arrived(user=request.user, table_id=context["table"].pk)  # seated by quick play
    return render(request, "tables/table.html", context)


@never_cache  # it may hold the viewer's hand: never kept by a browser or a shared cache
@require_GET
def table_live(request, table_id):
    """The table's changing part (``#table-live``), polled by the page: 204 when the table
    has not changed since the version the page shows."""
    context = _table_context(request, table_id)
    status = request.GET.get("status")
    if status and status != context["table"].status:
        # The match started (or ended): the page changes shape, so reload it whole.
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    if request.GET.get("version") == context["table"].version:
        return HttpResponse(status=204)
    context["play"] = live_selectors.current_deal(context["table"]) is not None
    return render(request, "tables/_waiting_room.html", context)


def _table_step(request, table_id, step, success_url=None):
    """Run one seating step for the signed-in user; on refusal show its reason."""
    table = get_object_or_404(Table, pk=table_id)
    table_url = reverse("games:table", args=[table.pk])
    back = request.POST.get("back", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = table_url
    try:
        step(table)
    except TableError as error:
        return _refused(request, error, back)
    return _go(request, success_url or table_url)


@login_required
@require_POST
def take_seat(request, table_id):
    """Take an empty seat, or move to it when already seated here (R10.5)."""
    form = SeatForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("R1.1: seats are numbered 1 to 4."))
        return _go(request, reverse("games:table", args=[table_id]))
    code = invitations(request.session).get(str(table_id))
    return _table_step(
        request,
        table_id,
        lambda table: services.take_seat(
            table=table, user=request.user, position=form.cleaned_data["position"], invite_code=code
        ),
    )


@login_required
@require_POST
def leave_seat(request, table_id):
    """Leave the table (R10.7 at a match in progress)."""
    return _table_step(
        request, table_id, lambda table: services.leave_seat(table=table, user=request.user), reverse("games:lobby")
    )


@login_required
@require_POST
def return_to_seat(request, table_id):
    """Come back to the seat a bot kept while away (R10.7)."""
    return _table_step(request, table_id, lambda table: services.return_to_seat(table=table, user=request.user))


@login_required
@require_POST
def fill_with_bots(request, table_id):
    """Fill the empty seats with bots (R10.2)."""
    return _table_step(request, table_id, lambda table: services.fill_with_bots(table=table, user=request.user))


@login_required
@require_POST
def start_match(request, table_id):
    """Start the match (R10.5)."""
    return _table_step(request, table_id, lambda table: services.start_match(table=table, user=request.user))


@login_required
@require_POST
def close_table(request, table_id):
    """Close a waiting table (the host) or any open table (staff)."""
    return _table_step(
        request, table_id, lambda table: services.close_table(table=table, user=request.user), reverse("games:lobby")
    )


@require_POST
def join_by_code(request):
    """The lobby's "join by code" form: a signed-in player sits down in the first free seat
    of that friend table (R10.3), or is told why not and shown the table to watch."""
    form = JoinByCodeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Enter the invitation code you were given."))
        return redirect("games:lobby")
    table = _invited_table(request, form.cleaned_data["code"])
    if table is None:
        return redirect("games:lobby")
    if request.user.is_authenticated:
        _seat_the_invited(request, table)
    else:
        messages.info(request, _("Log in, sign up or play as a guest to take a seat at this friend table."))
    return redirect("games:table", table_id=table.pk)


def _invited_table(request, code: str) -> Table | None:
    """The open friend table of ``code``, remembered for this browser (R10.3), or None
    with the reason told."""
    table = Table.objects.filter(invite_code=code.strip().upper(), kind=Table.Kind.FRIEND).first()
    if table is None or not table.is_open:
        messages.error(request, _("R10.3: no open friend table has the invitation code %(code)s.") % {"code": code})
        return None
    stored = invitations(request.session)
    stored[str(table.pk)] = table.invite_code
    request.session[INVITATIONS_SESSION_KEY] = stored
    return table


@require_http_methods(["GET", "POST"])
def join_invite(request, code):
    """An invitation link to a friend table (R10.3). Opening it remembers the invitation
    and asks a signed-in player to confirm taking the first free seat (a link followed,
    or loaded by another site, never seats anyone by itself); the confirmation (POST)
    seats the player, or says why not, and shows the table. A visitor is offered to play
    as a guest, log in or sign up, each of which comes back to this invitation."""
    table = _invited_table(request, code)
    if table is None:
        return redirect("games:lobby")
    if not request.user.is_authenticated:
        if request.method == "POST" or not _free_seats(request, table):
            return redirect("games:table", table_id=table.pk)
        return render(request, "tables/join.html", {
            "table": table, "code": table.invite_code, "visitor": True,
            "free": SEAT_COUNT - table.seats.count(), "back": request.path,
            "host_name": display_name_of(table.host) if table.host_id else "",
        })
    if request.method == "POST":
        _seat_the_invited(request, table)
        return redirect("games:table", table_id=table.pk)
    if table.seats.filter(user=request.user).exists():
        return redirect("games:table", table_id=table.pk)
    free = _free_seats(request, table)
    if not free:
        return redirect("games:table", table_id=table.pk)
    return render(request, "tables/join.html", {
        "table": table, "code": table.invite_code, "free": len(free),
        "host_name": display_name_of(table.host) if table.host_id else "",
    })


def _free_seats(request, table: Table) -> list[int]:
    """The free seats an invited player may take now (R10.5), or [] with the reason told."""
    taken = set(table.seats.values_list("position", flat=True))
    free = [position for position in range(SEAT_COUNT) if position not in taken]
    if not free or table.status != Table.Status.WAITING:
        messages.info(request, _("R10.5: this table has no free seat now; you can watch it."))
        return []
    return free


def _seat_the_invited(request, table: Table) -> None:
    """The invited player sits down in the first free seat (R10.3, R10.5); when none is
    free or the seat is refused, the table is shown to watch, with the reason."""
    if table.seats.filter(user=request.user).exists():
        return
    free = _free_seats(request, table)
    if not free:
        return
    try:
        services.take_seat(table=table, user=request.user, position=free[0], invite_code=table.invite_code)
    except TableError as error:
        messages.error(request, _("%(reason)s You can watch the table.") % {"reason": error.message})
    else:
        messages.success(request, _("You sit in seat %(number)s.") % {"number": free[0] + 1})


@require_GET
def continue_playing(request):
    """Back to the table the player sits at (or left and may rejoin), else the lobby."""
    table = selectors.continue_table_of(request.user) if request.user.is_authenticated else None
    if table is None:
        return redirect("games:lobby")
    return redirect("games:table", table_id=table.pk)
