"""Reads about tables: the lobby, one table's waiting room, where a player sits.

The buttons a page offers come from the same ``games.tables.policies`` checks the services run,
so a button is shown exactly when pressing it would succeed.
"""

from dataclasses import dataclass, field

from django.db.models import Case, Prefetch, Value, When

from accounts import career
from accounts.models import Profile
from games.models import SEAT_COUNT, Match, Seat, Table
from games.tables import policies

OPEN_STATUSES = (Table.Status.WAITING, Table.Status.PLAYING)
LOBBY_LIMIT = 30


# The session remembers the friend tables whose invitation this browser opened:
# {table id: invitation code} (R10.3).
INVITATIONS_SESSION_KEY = "invitations"


def invitations(session) -> dict[str, str]:
    return dict(session.get(INVITATIONS_SESSION_KEY, {}))


@dataclass
class Viewer:
    """Who is looking: the user (or anonymous), with what the checks need, loaded once."""

    user: object
    profile: Profile | None = None
    current_seat: Seat | None = None
    away_table_ids: set[int] = field(default_factory=set)
    invited_table_ids: set[int] = field(default_factory=set)

    @property
    def is_player(self) -> bool:
        return self.profile is not None


def viewer_for(user, *, invited_table_ids=()) -> Viewer:
    """Build the viewer for ``user``; ``invited_table_ids`` are the friend tables whose
    invitation this browser has opened (kept in the session)."""
    invited = {int(table_id) for table_id in invited_table_ids}
    if user is None or not user.is_authenticated:
        return Viewer(user=user, invited_table_ids=invited)
    profile = Profile.objects.filter(user=user).first()
    return Viewer(
        user=user,
        profile=profile,
        current_seat=current_seat_of(user),
        away_table_ids=set(
            Seat.objects.filter(away_user=user, table__status=Table.Status.PLAYING).values_list("table_id", flat=True)
        ),
        invited_table_ids=invited,
    )


def current_seat_of(user) -> Seat | None:
    """The seat the player occupies at an open table (a player sits at one at a time; a
    tournament seats its entrants wherever else they sit, and its table comes first)."""
    if user is None or not user.is_authenticated:
        return None
    tournament_first = Case(When(table__kind=Table.Kind.TOURNAMENT, then=Value(0)), default=Value(1))
    return (Seat.objects.filter(user=user, table__status__in=OPEN_STATUSES).select_related("table")
            .order_by(tournament_first, "-table_id").first())


def continue_table_of(user) -> Table | None:
    """The table to go back to: where the player sits, else a match they left and may
    rejoin (R10.7)."""
    seat = current_seat_of(user)
    if seat is not None:
        return seat.table
    if user is None or not user.is_authenticated:
        return None
    away = Seat.objects.filter(away_user=user, table__status=Table.Status.PLAYING).select_related("table").first()
    return away.table if away else None


def _seat_queryset():
    return Seat.objects.select_related("user__profile", "user__bot_account", "away_user__profile").order_by("position")


def tables_with_seats(queryset=None):
    """Tables with their seats and players loaded in three queries."""
    queryset = queryset if queryset is not None else Table.objects.all()
    return queryset.select_related("host__profile").prefetch_related(Prefetch("seats", queryset=_seat_queryset()))


def _name(user) -> str:
    profile = getattr(user, "profile", None)
    return profile.display_name if profile is not None else user.get_username()


@dataclass
class SeatView:
    """One of the four seats as a page shows it to one viewer."""

    position: int
    seat: Seat | None
    name: str = ""
    is_bot: bool = False
    is_you: bool = False
    is_host: bool = False
    away_name: str = ""
    can_take: bool = False
    can_move: bool = False

    @property
    def number(self) -> int:
        return self.position + 1

    @property
    def is_empty(self) -> bool:
        return self.seat is None

    @property
    def team_label(self) -> str:
        return "A" if self.position % 2 == 0 else "B"


@dataclass
class TableView:
    """A table as one viewer sees it, with the steps open to that viewer."""

    table: Table
    seats: list[SeatView]
    host_name: str
    is_mine: bool
    is_away: bool
    can_watch: bool
    can_leave: bool
    can_return: bool
    can_fill: bool
    can_start: bool
    can_close: bool
    is_host: bool
    refusal: str | None = None

    @property
    def humans(self) -> int:
        return sum(1 for seat in self.seats if seat.seat is not None and not seat.is_bot)

    @property
    def empty_seats(self) -> int:
        return sum(1 for seat in self.seats if seat.is_empty)

    @property
    def can_sit_somewhere(self) -> bool:
        return any(seat.can_take for seat in self.seats)

    @property
    def tier_factor(self) -> int:
        """Points factor of a match table's tier (R10.6); 0 where no points count."""
        return career.tier_factor(self.table.tier) if self.table.awards_points else 0

    @property
    def leave_penalty(self) -> int:
        """What leaving a match in progress here costs (R10.7)."""
        return career.LEAVE_PENALTY * self.tier_factor


# Who may see a tournament's tables and their matches is the tournament's rule (R13.6:
# nothing of a board before one has played it): the tournaments app registers its two
# checks here when it starts, so this app knows nothing of tournaments. Unregistered, a
# tournament table is seen by nobody.
_KIND_RULES: dict[str, tuple] = {}


def register_kind_rule(kind: str, *, table, match) -> None:
    """``table(table, viewer) -> bool`` and ``match(match, viewer) -> bool`` decide who
    may see tables of ``kind`` and their matches (replays, exports, history)."""
    _KIND_RULES[kind] = (table, match)


def may_see(table: Table, viewer: Viewer) -> bool:
    """Friend tables are private (R10.3): seen by their players, their host and whoever
    opened the invitation. A tournament's tables follow its own rule (R13.6). Every other
    table is public, to watch at least."""
    if table.kind == Table.Kind.TOURNAMENT:
        rule = _KIND_RULES.get(table.kind)
        return rule is not None and rule[0](table, viewer)
    if table.kind != Table.Kind.FRIEND:
        return True
    if not viewer.is_player:
        return table.pk in viewer.invited_table_ids
    user_id = viewer.user.pk
    return (
        table.host_id == user_id
        or table.pk in viewer.invited_table_ids
        or table.pk in viewer.away_table_ids
        or any(seat.user_id == user_id for seat in table.seats.all())
    )


def may_see_match(match, viewer: Viewer) -> bool:
    """Friend tables are private (R10.3) while playing and after: a friend table's
    match, its replays and exports are seen by the match's players, whoever may see the
    table (its players, host and invitees) and staff. Every other match is public."""
    table = match.table
    if table.kind == Table.Kind.TOURNAMENT:
        rule = _KIND_RULES.get(table.kind)
        return rule is not None and rule[1](match, viewer)
    if table.kind != Table.Kind.FRIEND:
        return True
    user = viewer.user
    if viewer.is_player and (user.is_staff or match.participants.filter(user=user).exists()):
        return True
    return may_see(table, viewer)


def table_view(table: Table, viewer: Viewer) -> TableView:
    """Describe ``table`` (loaded with ``tables_with_seats``) for ``viewer``."""
    seats = {seat.position: seat for seat in table.seats.all()}
    host = policies.host_id(table, seats)
    user = viewer.user
    player = viewer.is_player
    is_mine = player and any(seat.user_id == user.pk for seat in seats.values())
    current_elsewhere = viewer.current_seat if viewer.current_seat and viewer.current_seat.table_id != table.pk else None
    invited = table.pk in viewer.invited_table_ids
    seat_views = []
    for position in range(SEAT_COUNT):
        seat = seats.get(position)
        view = SeatView(position=position, seat=seat)
        if seat is not None:
            view.is_bot = seat.is_bot
            view.name = _name(seat.user) if seat.user_id else ""
            view.is_you = player and seat.user_id == user.pk
            view.is_host = seat.user_id is not None and seat.user_id == host
            view.away_name = _name(seat.away_user) if seat.away_user_id else ""
        elif player:
            allowed = (
                policies.refuse_sit(
                    table=table,
                    seats=seats,
                    user=user,
                    profile=viewer.profile,
                    position=position,
                    invited=invited,
                    current_seat=current_elsewhere,
                )
                is None
            )
            view.can_move = allowed and is_mine
            view.can_take = allowed and not is_mine
        seat_views.append(view)
    refusal = None
    if player and not is_mine and table.status == Table.Status.WAITING and len(seats) < SEAT_COUNT:
        refusal = policies.refuse_sit(
            table=table,
            seats=seats,
            user=user,
            profile=viewer.profile,
            position=min(set(range(SEAT_COUNT)) - set(seats)),
            invited=invited,
            current_seat=current_elsewhere,
        )
    elif player and not is_mine and table.kind == Table.Kind.PRACTICE:
        refusal = policies.refuse_sit(
            table=table, seats=seats, user=user, profile=viewer.profile, position=0, invited=invited, current_seat=None
        )
    is_away = player and table.pk in viewer.away_table_ids
    host_user = next((seat.user for seat in seats.values() if seat.user_id == host), None)
    return TableView(
        table=table,
        seats=seat_views,
        host_name=_name(host_user) if host_user else "",
        is_mine=is_mine,
        is_away=is_away,
        can_watch=may_see(table, viewer),
        can_leave=player and policies.refuse_leave(table=table, seats=seats, user=user) is None,
        can_return=player
        and is_away
        and policies.refuse_return(table=table, seats=seats, user=user, current_seat=current_elsewhere) is None,
        can_fill=player and policies.refuse_fill(table=table, seats=seats, user=user) is None,
        can_start=player and policies.refuse_start(table=table, seats=seats, user=user) is None,
        can_close=player and policies.refuse_close(table=table, seats=seats, user=user) is None,
        is_host=player and host == user.pk,
        refusal=refusal,
    )


@dataclass
class TierSection:
    tier: career.TierRule
    tables: list[TableView]
    is_open_to_viewer: bool


@dataclass
class Lobby:
    """The lobby for one viewer: match tables by tier, friend tables, practice tables."""

    viewer: Viewer
    continue_table: Table | None
    match_tiers: list[TierSection]
    friend_tables: list[TableView]
    practice_tables: list[TableView]

    @property
    def is_empty(self) -> bool:
        return not (
            any(section.tables for section in self.match_tiers) or self.friend_tables or self.practice_tables
        )


def lobby_for(viewer: Viewer) -> Lobby:
    """The open tables a viewer may see, grouped as the lobby shows them; a viewer's own
    tables come first in each group."""
    # A tournament's tables are listed on its own page, not here.
    tables = list(tables_with_seats(Table.objects.filter(status__in=OPEN_STATUSES).exclude(kind=Table.Kind.TOURNAMENT))
                  .order_by("-created_at", "-id"))
    views = [table_view(table, viewer) for table in tables if may_see(table, viewer)]
    views.sort(key=lambda view: not (view.is_mine or view.is_away))

    def of_kind(kind):
        return [view for view in views if view.table.kind == kind][:LOBBY_LIMIT]

    match_views = of_kind(Table.Kind.MATCH)
    points = viewer.profile.career_points if viewer.profile else 0
    tiers = [
        TierSection(
            tier=rule,
            tables=[view for view in match_views if view.table.tier == rule.key],
            is_open_to_viewer=viewer.is_player and not viewer.profile.is_guest and career.tier_is_open(rule.key, points),
        )
        for rule in career.TIERS.values()
    ]
    continue_table = None
    if viewer.current_seat is not None:
        continue_table = viewer.current_seat.table
    elif viewer.away_table_ids:
        continue_table = Table.objects.filter(pk__in=viewer.away_table_ids).first()
    return Lobby(
        viewer=viewer,
        continue_table=continue_table,
        match_tiers=tiers,
        friend_tables=of_kind(Table.Kind.FRIEND),
        practice_tables=of_kind(Table.Kind.PRACTICE),
    )


def table_for_page(table_id: int):
    """One table with its seats for its page, or None."""
    return tables_with_seats(Table.objects.filter(pk=table_id)).first()


def match_in_progress(table: Table) -> Match | None:
    return table.matches.filter(status=Match.Status.PLAYING).first()


def latest_match(table: Table) -> Match | None:
    return table.matches.order_by("-number").first()
