"""Writes of quick play (R10.9): joining a tier's queue, alone or as a friend's
partner, leaving it, keeping a place by having a page open, and the matcher that seats
the waiting players at new match tables.

The queue lives in the database (``QueueEntry``). The matcher of a tier runs in one
transaction with the tier's waiting rows locked (``select_for_update``; SQLite's
IMMEDIATE transactions serialise it there), so however many web processes and workers
run it at once, a waiting row is seated once; it then locks the players' profiles (in
user order, as every seat change does) and checks each again: still registered, the
tier still open (R10.7), not seated at another open table (R10.5). It runs when someone
joins, when the oldest waiting player's bot-fill wait ends, and from the sweep (Celery
beat every 5 s; the embedded scheduler the same), so a restart of any process loses
nothing.

Lock order: queue rows, then profiles, then the new table. Joining and leaving never
lock a profile (the matcher checks again), so they never wait for each other in
opposite orders.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import career
from accounts.models import Profile
from games.live.broadcast import send_to_group
from games.live.scheduler import schedule
from games.models import BotLevel, Seat, Table
from games.quickplay.models import QueueEntry
from games.tables import services as table_services

#: The channel group of every quick-play page (the waiting counts).
COUNTS_GROUP = "quickplay"
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Seated rows are kept this long so a page that reconnects late still finds its table.
SEATED_KEPT = timedelta(minutes=10)
#: Bots at quick-play tables, by tier: the strongest where players are strongest.
BOT_LEVELS = {"junior": BotLevel.NORMAL, "senior": BotLevel.HARD, "grandmaster": BotLevel.HARD}


class QueueError(Exception):
    """A refused quick-play step; the message cites the rule. Nothing was changed."""

    def __init__(self, message: str, *, table: Table | None = None):
        super().__init__(message)
        self.message = message
        self.table = table  # the match in progress the player is sent back to (R10.9)


def user_group(user_id: int) -> str:
    """The quick-play pages of one player, in every process."""
    return f"quickplay-{user_id}"


def _code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))


def presence() -> timedelta:
    return timedelta(seconds=settings.GUANDAN_QUICKPLAY_PRESENCE)


def bot_fill_after() -> timedelta:
    return timedelta(seconds=settings.GUANDAN_QUICKPLAY_BOT_FILL_AFTER)


def _open_seat(user) -> Seat | None:
    return (
        Seat.objects.filter(user=user, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING])
        .select_related("table").first()
    )


def refusal(user, tier: str, profile: Profile | None = None, seat: Seat | None = None) -> QueueError | None:
    """Why ``user`` may not wait for a table of ``tier``, if so (R10.1, R10.7, R10.9,
    R10.5); a player seated at a match in progress is sent back to it."""
    from accounts.bots import is_bot_user

    profile = profile or Profile.objects.get(user=user)
    if profile.is_guest or is_bot_user(user):
        return QueueError(_("R10.9: quick play is for registered players; sign up or register your guest account first."))
    if tier not in career.TIERS:
        return QueueError(_("R10.1: a match table has a tier: Junior, Senior or Grandmaster."))
    if not career.tier_is_open(tier, profile.career_points):
        rule = career.TIERS[tier]
        return QueueError(_("R10.7: the %(tier)s tier opens at %(needed)s career points; you have %(points)s.") % {
            "tier": rule.label, "needed": rule.opens_at, "points": profile.career_points})
    seat = seat or _open_seat(user)
    if seat is not None:
        if seat.table.status == Table.Status.PLAYING and seat.table.kind == Table.Kind.MATCH:
            return QueueError(_("R10.9: you are playing a match at %(table)s; back to it.") % {"table": seat.table},
                              table=seat.table)
        return QueueError(_("R10.5: you already sit at %(table)s; leave it before quick play.") % {"table": seat.table})
    return None


def _after_change(tiers, users=()) -> None:
    """On commit: the matcher runs for the tiers (now, and when the bot-fill wait of a
    newcomer ends), every quick-play page hears the counts, the players' pages their
    new state."""
    tiers = sorted(set(tiers))
    users = sorted(set(users))

    def send():
        for tier in tiers:
            schedule("quickplay_match", tier, delay=0)
            schedule("quickplay_match", tier, delay=settings.GUANDAN_QUICKPLAY_BOT_FILL_AFTER + 0.2)
        announce(users)

    transaction.on_commit(send, robust=True)


def announce(users=()) -> None:
    """Tell the players' quick-play pages to draw their state again, and every page the
    waiting counts (call after commit)."""
    from games.quickplay.selectors import waiting_counts

    for user_id in users:
        send_to_group(user_group(user_id), {"type": "quickplay.changed"})
    send_to_group(COUNTS_GROUP, {"type": "quickplay.counts", "counts": waiting_counts()})


def join(*, user, tier: str) -> QueueEntry:
    """Wait in ``tier``'s queue (R10.9). Asking again for the same tier keeps the place
    (a double click); another tier moves the player there, alone, from now."""
    problem = refusal(user, tier)
    if problem is not None:
        raise problem
    now = timezone.now()
    with transaction.atomic():
        entry = QueueEntry.objects.select_for_update(of=("self",)).filter(user=user).first()
        if entry is not None and entry.status == QueueEntry.Status.WAITING and entry.tier == tier:
            entry.seen_at = now
            entry.save(update_fields=["seen_at"])
            return entry
        partners = _party_of(entry) if entry is not None and entry.status == QueueEntry.Status.WAITING else []
        code = _code()
        values = {"tier": tier, "status": QueueEntry.Status.WAITING, "party": code, "invite_code": code,
                  "joined_at": now, "seen_at": now, "table": None, "seated_at": None}
        entry = _save_entry(user, entry, values)
        _after_change([tier], [user.pk, *partners])
    return entry


def _save_entry(user, entry: QueueEntry | None, values: dict) -> QueueEntry:
    if entry is None:
        entry = QueueEntry(user=user)
    for name, value in values.items():
        setattr(entry, name, value)
    for _attempt in range(3):
        try:
            with transaction.atomic():
                entry.save()
            return entry
        except IntegrityError:  # an invitation code taken: draw another
            entry.invite_code = _code()
    raise QueueError(_("R10.9: the queue is busy; try again."))


def _party_of(entry: QueueEntry) -> list[int]:
    """The other waiting member of the entry's party, if any."""
    return list(
        QueueEntry.objects.filter(party=entry.party, status=QueueEntry.Status.WAITING).exclude(pk=entry.pk)
        .values_list("user_id", flat=True)
    )


def join_as_partner(*, user, code: str) -> QueueEntry:
    """Join the friend whose invitation ``code`` this is, as their partner (R10.9): the
    same tier and place in the queue, opposite them at the table."""
    code = (code or "").strip().upper()
    now = timezone.now()
    with transaction.atomic():
        host = (QueueEntry.objects.select_for_update(of=("self",)).filter(invite_code=code)
                .select_related("user__profile").first())
        if host is None or host.status != QueueEntry.Status.WAITING:
            raise QueueError(_("R10.9: this invitation is no longer waiting; your friend was seated or left the queue."))
        if host.user_id == user.pk:
            raise QueueError(_("R10.9: this is your own invitation; send it to a friend."))
        others = [uid for uid in _party_of(host) if uid != user.pk]
        if others:
            raise QueueError(_("R10.9: %(name)s already has a partner in the queue.") % {
                "name": host.user.profile.display_name})
        problem = refusal(user, host.tier)
        if problem is not None:
            raise problem
        entry = QueueEntry.objects.select_for_update(of=("self",)).filter(user=user).first()
        previous = _party_of(entry) if entry is not None and entry.status == QueueEntry.Status.WAITING else []
        values = {"tier": host.tier, "status": QueueEntry.Status.WAITING, "party": host.party,
                  "invite_code": entry.invite_code if entry is not None else _code(),
                  "joined_at": host.joined_at, "seen_at": now, "table": None, "seated_at": None}
        entry = _save_entry(user, entry, values)
        _after_change([host.tier], [user.pk, host.user_id, *previous])
    return entry


def leave(*, user) -> bool:
    """Leave the queue (R10.9); a partner keeps waiting alone. Returns whether the
    player was waiting (a player seated meanwhile stays seated)."""
    with transaction.atomic():
        entry = QueueEntry.objects.select_for_update(of=("self",)).filter(user=user).first()
        if entry is None or entry.status != QueueEntry.Status.WAITING:
            return False
        partners = _party_of(entry)
        entry.delete()
        _after_change([entry.tier], [user.pk, *partners])
    return True


def seen(*, user_id: int) -> str | None:
    """A page of the site is open for the player (its socket says so every few
    seconds): the place in the queue is kept. Returns the entry's status, if any."""
    now = timezone.now()
    if QueueEntry.objects.filter(user_id=user_id, status=QueueEntry.Status.WAITING).update(seen_at=now):
        return QueueEntry.Status.WAITING
    return QueueEntry.objects.filter(user_id=user_id).values_list("status", flat=True).first()


def arrived(*, user, table_id: int) -> None:
    """The player opened the table quick play seated them at: nothing more to show."""
    QueueEntry.objects.filter(user=user, status=QueueEntry.Status.SEATED, table_id=table_id).delete()


# ----------------------------------------------------------------------------------------
# The matcher


@dataclass
class _Unit:
    """Players who sit down together: one, or two partners."""

    entries: list[QueueEntry]

    @property
    def size(self) -> int:
        return len(self.entries)

    @property
    def joined_at(self):
        return min(entry.joined_at for entry in self.entries)


def _units(entries: list[QueueEntry]) -> list[_Unit]:
    by_party: dict[str, list[QueueEntry]] = {}
    for entry in entries:
        by_party.setdefault(entry.party, []).append(entry)
    units = [_Unit(members[:2]) for members in by_party.values()]
    units.sort(key=lambda unit: (unit.joined_at, min(e.pk for e in unit.entries)))
    return units


def _four(units: list[_Unit]) -> list[_Unit] | None:
    """The table to seat next: the longest-waiting unit and the earliest others that
    make exactly four players (R10.9: longest wait first); None when none do."""
    if not units:
        return None
    first, rest = units[0], units[1:13]
    need = 4 - first.size
    fits = [
        combo for count in range(1, 4) for combo in itertools.combinations(range(len(rest)), count)
        if sum(rest[i].size for i in combo) == need
    ]
    if not fits:
        return None
    best = min(fits)  # the earliest waiters: compare the index lists from the front
    return [first, *(rest[i] for i in best)]


def seating(units: list[_Unit]) -> dict[int, object]:
    """Seat positions for the units' players: partners opposite each other (R1.1), the
    others spread over both teams, so people play people where they can."""
    free = {0: [0, 2], 1: [1, 3]}
    seats: dict[int, object] = {}
    for unit in sorted(units, key=lambda u: -u.size):
        if unit.size == 2:
            team = 0 if free[0] == [0, 2] else 1
            for position, entry in zip(free[team], unit.entries):
                seats[position] = entry.user
            free[team] = []
        else:
            team = max((0, 1), key=lambda t: (len(free[t]), -t))
            seats[free[team].pop(0)] = unit.entries[0].user
    return seats


def match_tier(tier: str, *, now=None) -> list[Table]:
    """Seat who can be seated in ``tier``'s queue now (R10.9): four at a time, longest
    wait first; then, once two or three players have each waited the bot-fill wait,
    those players with bots (R10.2). Players with no page open for the presence window
    have left the queue. Returns the tables opened."""
    now = now or timezone.now()
    opened: list[Table] = []
    changed: set[int] = set()
    with transaction.atomic():
        entries = list(
            QueueEntry.objects.select_for_update(of=("self",)).filter(status=QueueEntry.Status.WAITING, tier=tier)
            .select_related("user").order_by("joined_at", "id")
        )
        if not entries:
            return []
        gone = [entry for entry in entries if entry.seen_at < now - presence()]
        live = [entry for entry in entries if entry.seen_at >= now - presence()]
        profiles = {
            profile.user_id: profile for profile in
            Profile.objects.select_for_update().filter(user_id__in=[e.user_id for e in live]).order_by("user_id")
        }
        seats = {seat.user_id: seat for seat in Seat.objects.filter(
            user_id__in=[e.user_id for e in live], table__status__in=[Table.Status.WAITING, Table.Status.PLAYING]
        ).select_related("table")}
        ready = []
        for entry in live:
            if refusal(entry.user, tier, profiles[entry.user_id], seats.get(entry.user_id)) is None:
                ready.append(entry)
            else:
                gone.append(entry)
        for entry in gone:
            entry.delete()
            changed.add(entry.user_id)
        units = _units(ready)
        while (group := _four(units)) is not None:
            opened.append(_seat(tier, group, now))
            units = [unit for unit in units if unit not in group]
        due = [unit for unit in units if unit.joined_at <= now - bot_fill_after()]
        group: list[_Unit] = []
        for unit in due:
            if sum(u.size for u in group) + unit.size <= 3:
                group.append(unit)
        if sum(unit.size for unit in group) >= 2:
            opened.append(_seat(tier, group, now))
        for table in opened:
            changed.update(seat.user_id for seat in table.seats.all() if seat.user_id)
        if changed:
            transaction.on_commit(lambda: announce(sorted(changed)), robust=True)
    return opened


def _seat(tier: str, units: list[_Unit], now) -> Table:
    table = table_services.open_quick_table(tier=tier, players=seating(units), bot_level=BOT_LEVELS[tier])
    for unit in units:
        for entry in unit.entries:
            entry.status = QueueEntry.Status.SEATED
            entry.table = table
            entry.seated_at = now
            entry.save(update_fields=["status", "table", "seated_at"])
    return table


def match_all(*, now=None) -> int:
    """Run the matcher of every tier with players waiting, and forget seated rows past
    their keeping (the sweep). Returns how many tables were opened."""
    now = now or timezone.now()
    QueueEntry.objects.filter(status=QueueEntry.Status.SEATED, seated_at__lt=now - SEATED_KEPT).delete()
    tiers = QueueEntry.objects.filter(status=QueueEntry.Status.WAITING).values_list("tier", flat=True).distinct()
    return sum(len(match_tier(tier, now=now)) for tier in list(tiers))
