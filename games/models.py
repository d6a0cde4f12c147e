"""Tables, seats, matches, deals and the action log.

Models hold fields, constraints and small properties; every change goes through
``games.tables.services``. Constraints make illegal rows impossible rather than merely unlikely:
one player per seat, one seat per player at a table, a seat is a human or a bot (never
both), one match in progress per table, and an action log that is strictly ordered per deal.

Seats are numbered 0-3 in code and 1-4 on screen (R1.1); seats 0 & 2 are team A, 1 & 3
team B. Levels are rank indexes 0-12 (2 to A) as in ``games.engine``.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts import career

SEAT_COUNT = 4
TEAM_A = 0
TEAM_B = 1
TEAM_CHOICES = [(TEAM_A, _("Team A (seats 1 & 3)")), (TEAM_B, _("Team B (seats 2 & 4)"))]
LEVEL_MIN = 0  # level 2
LEVEL_MAX = 12  # level A


def team_of(position: int) -> int:
    """The team of a seat: seats 1 & 3 (positions 0, 2) are team A, 2 & 4 team B (R1.1)."""
    return position % 2


class BotLevel(models.TextChoices):
    EASY = "easy", _("Easy")
    NORMAL = "normal", _("Normal")
    HARD = "hard", _("Hard")


class Table(models.Model):
    """A table where four seats play matches; the lobby lists the open ones."""

    class Kind(models.TextChoices):
        MATCH = "match", _("Match")
        FRIEND = "friend", _("Friend")
        PRACTICE = "practice", _("Practice")
        TOURNAMENT = "tournament", _("Tournament")

    class Tier(models.TextChoices):
        JUNIOR = career.JUNIOR, _("Junior")
        SENIOR = career.SENIOR, _("Senior")
        GRANDMASTER = career.GRANDMASTER, _("Grandmaster")

    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting for players")
        PLAYING = "playing", _("Playing")
        FINISHED = "finished", _("Finished")
        CLOSED = "closed", _("Closed")

    THINK_TIME_CHOICES = [(seconds, format_lazy(_("{seconds} s"), seconds=seconds)) for seconds in (10, 15, 20, 30, 45, 60, 90, 120)]
    BOT_SPEED_CHOICES = [
        (Decimal("0.3"), _("Very fast (0.3 s)")),
        (Decimal("0.5"), _("Fast (0.5 s)")),
        (Decimal("1.0"), _("Normal (1 s)")),
        (Decimal("2.0"), _("Slow (2 s)")),
        (Decimal("3.0"), _("Very slow (3 s)")),
    ]

    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    tier = models.CharField(_("tier"), max_length=12, choices=Tier.choices, blank=True, help_text=_("Match tables only."))
    host = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("host"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="hosted_tables",
        help_text=_("The player who created the table."),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.WAITING)
    think_time = models.PositiveSmallIntegerField(
        _("think time"), choices=THINK_TIME_CHOICES, default=30, help_text=_("Seconds per turn (R9.2).")
    )
    bot_speed = models.DecimalField(
        _("bot speed"),
        max_digits=3,
        decimal_places=1,
        choices=BOT_SPEED_CHOICES,
        default=Decimal("1.0"),
        help_text=_("Seconds a bot waits before it plays."),
    )
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, default=BotLevel.NORMAL)
    invite_code = models.CharField(
        _("invitation code"), max_length=12, unique=True, null=True, blank=True, help_text=_("Friend tables only (R10.3).")
    )
    card_counter = models.BooleanField(
        _("card counter"), default=False,
        help_text=_("Friend tables only: the host lets players open the card counter (R10.8). Practice tables "
                    "always have it; match tables never."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    talk_off_by = models.JSONField(
        _("table talk switched off by"), default=list, blank=True,
        help_text=_("The seated players who switched table talk off here; it shows while none of them is seated."),
    )
    human_seen_at = models.DateTimeField(
        _("a human last seen"), null=True, blank=True,
        help_text=_("When a seated player last acted or had the table open; a match with no human for "
                    "GUANDAN_ABANDON_AFTER seconds is abandoned."),
    )

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status", "kind"])]
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="match") & ~Q(tier="")) | (~Q(kind="match") & Q(tier="")),
                name="table_tier_only_for_match",
                violation_error_message=_("Match tables have a tier; other tables have none (R10.1)."),
            ),
            models.CheckConstraint(
                condition=(Q(kind="friend") & Q(invite_code__isnull=False)) | (~Q(kind="friend") & Q(invite_code__isnull=True)),
                name="table_invite_code_only_for_friend",
                violation_error_message=_("Friend tables have an invitation code; other tables have none (R10.3)."),
            ),
            models.CheckConstraint(
                condition=~Q(kind="match", card_counter=True),
                name="table_no_card_counter_at_match",
                violation_error_message=_("R10.8: no assistance at match tables, the card counter included."),
            ),
            models.CheckConstraint(condition=Q(think_time__gte=5) & Q(think_time__lte=300), name="table_think_time_range"),
            models.CheckConstraint(condition=Q(bot_speed__gt=0), name="table_bot_speed_positive"),
        ]

    def __str__(self):
        if self.kind == self.Kind.MATCH:
            return _("%(tier)s match table #%(id)s") % {"tier": self.get_tier_display(), "id": self.pk}
        if self.kind == self.Kind.FRIEND:
            return _("Friend table #%(id)s") % {"id": self.pk}
        if self.kind == self.Kind.TOURNAMENT:
            return _("Tournament table #%(id)s") % {"id": self.pk}
        return _("Practice table #%(id)s") % {"id": self.pk}

    @property
    def is_open(self) -> bool:
        """Waiting or playing: listed in the lobby and counted as where its players sit."""
        return self.status in (self.Status.WAITING, self.Status.PLAYING)

    @property
    def has_card_counter(self) -> bool:
        """R10.8: the card counter is open at practice tables, at friend tables whose host
        allows it, and never at match tables."""
        return self.kind == self.Kind.PRACTICE or (self.kind == self.Kind.FRIEND and self.card_counter)

    @property
    def is_tournament(self) -> bool:
        """A tournament's table (R13.2): seated by the tournament, it plays a fixed list of
        boards and then finishes."""
        return self.kind == self.Kind.TOURNAMENT

    @property
    def allows_assistance(self) -> bool:
        """Suggestions, auto play and the coach: at friend and practice tables only
        (R10.8); match and tournament tables play unassisted."""
        return self.kind in (self.Kind.FRIEND, self.Kind.PRACTICE)

    @property
    def awards_points(self) -> bool:
        """Only match tables award career points (R10.1, R10.3, R10.4)."""
        return self.kind == self.Kind.MATCH

    @property
    def version(self) -> str:
        """Changes whenever the table or its seats change (services touch ``updated_at``)."""
        return self.updated_at.strftime("%Y%m%d%H%M%S%f")


class Seat(models.Model):
    """An occupied seat: a human (``user``) or a bot, never both. An empty seat has no row.

    ``away_user`` is the human who left while a match was in progress: a bot plays the seat
    until that player comes back (R10.7).
    """

    table = models.ForeignKey(Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField(_("position"), help_text=_("0-3 in code, shown as seats 1-4."))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, null=True, blank=True, related_name="seats"
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, blank=True)
    away_user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("away player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="away_seats",
        help_text=_("The player who left mid-match and may come back (R10.7)."),
    )
    autopilot = models.BooleanField(_("autopilot"), default=False, help_text=_("Set after two timeouts in a row (R9.2)."))
    auto_play = models.DecimalField(
        _("auto play"),
        max_digits=2,
        decimal_places=1,
        null=True,
        blank=True,
        help_text=_("Seconds between moves the site makes for this player on request; empty when off."),
    )
    seated_at = models.DateTimeField(_("seated"), auto_now_add=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "position"],
                name="seat_one_occupant_per_position",
                violation_error_message=_("That seat is taken."),
            ),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_seat_per_player",
                violation_error_message=_("A player sits in one seat of a table."),
            ),
            models.UniqueConstraint(
                fields=["table", "away_user"], condition=Q(away_user__isnull=False), name="seat_one_away_seat_per_player"
            ),
            models.CheckConstraint(condition=Q(position__lte=SEAT_COUNT - 1), name="seat_position_range"),
            models.CheckConstraint(
                condition=(Q(user__isnull=False) & Q(is_bot=False) & Q(bot_level=""))
                | (Q(user__isnull=True) & Q(is_bot=True) & ~Q(bot_level="")),
                name="seat_human_or_bot",
                violation_error_message=_("A seat holds a human or a bot, never both."),
            ),
            models.CheckConstraint(condition=Q(away_user__isnull=True) | Q(is_bot=True), name="seat_away_only_behind_bot"),
        ]

    def __str__(self):
        return _("Seat %(number)s at table #%(table)s") % {"number": self.number, "table": self.table_id}

    @property
    def number(self) -> int:
        """The seat number shown to people: 1-4 (R1.1)."""
        return self.position + 1

    @property
    def team(self) -> int:
        return team_of(self.position)


class Match(models.Model):
    """A match at a table: deals until a team wins at level A (R7.3)."""

    class Status(models.TextChoices):
        PLAYING = "playing", _("In progress")
        FINISHED = "finished", _("Finished")
        ABANDONED = "abandoned", _("Abandoned")

    table = models.ForeignKey(Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="matches")
    number = models.PositiveIntegerField(_("number"), help_text=_("1 for the table's first match."))
    seed = models.BigIntegerField(_("seed"), help_text=_("Seeds the match's deals and first lead (R8.6)."))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.PLAYING)
    level_a = models.PositiveSmallIntegerField(_("team A level"), default=LEVEL_MIN, help_text=_("Rank index: 0 is 2, 12 is A."))
    level_b = models.PositiveSmallIntegerField(_("team B level"), default=LEVEL_MIN, help_text=_("Rank index: 0 is 2, 12 is A."))
    winner_team = models.PositiveSmallIntegerField(_("winner"), choices=TEAM_CHOICES, null=True, blank=True)
    state = models.JSONField(_("engine match state"), default=dict, blank=True)
    boards = models.JSONField(
        _("boards"), null=True, blank=True,
        help_text=_("A tournament table's boards in the order it plays them (R13.2): each a dict of number, "
                    "seed, hands, level and leader. Empty for an ordinary match."),
    )
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("match")
        verbose_name_plural = _("matches")
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="match_number_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status="playing"),
                name="match_one_in_progress_per_table",
                violation_error_message=_("A table plays one match at a time."),
            ),
            models.CheckConstraint(condition=Q(level_a__lte=LEVEL_MAX) & Q(level_b__lte=LEVEL_MAX), name="match_level_range"),
            models.CheckConstraint(
                condition=Q(winner_team__isnull=True) | (Q(status="finished") & Q(winner_team__lte=TEAM_B)),
                name="match_winner_only_when_finished",
            ),
        ]

    def __str__(self):
        return _("Match %(number)s at table #%(table)s") % {"number": self.number, "table": self.table_id}

    @property
    def team_levels(self) -> tuple[int, int]:
        return (self.level_a, self.level_b)


class Participant(models.Model):
    """Who sat where when a match started: the record behind profiles and replays."""

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="participants")
    position = models.PositiveSmallIntegerField(_("position"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("player"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="participations",
    )
    is_bot = models.BooleanField(_("bot"), default=False)
    bot_level = models.CharField(_("bot level"), max_length=10, choices=BotLevel.choices, blank=True)

    class Meta:
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="participant_one_per_position"),
            models.CheckConstraint(condition=Q(position__lte=SEAT_COUNT - 1), name="participant_position_range"),
            # A deleted account leaves a human row with no user; a bot never has one.
            models.CheckConstraint(condition=Q(is_bot=False) | Q(user__isnull=True), name="participant_bot_has_no_user"),
        ]

    def __str__(self):
        return _("Seat %(number)s of %(match)s") % {"number": self.position + 1, "match": self.match}

    @property
    def team(self) -> int:
        return team_of(self.position)


class Deal(models.Model):
    """One deal of a match: what R11.1 needs to replay it, plus the latest state snapshot.

    The action log is the truth; ``state`` is the fold of the log, kept for speed, and
    ``seq`` is the number of actions applied so far.
    """

    match = models.ForeignKey(Match, verbose_name=_("match"), on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField(_("number"), help_text=_("1 for the match's first deal."))
    ruleset_version = models.CharField(_("ruleset version"), max_length=20)
    seed = models.BigIntegerField(_("seed"))
    hands = models.JSONField(_("dealt hands"), help_text=_("Four lists of card ids 0-107, seats 1-4."))
    active_level = models.PositiveSmallIntegerField(_("active level"), help_text=_("Rank index (R2.2)."))
    team_levels_before = models.JSONField(_("team levels before"), help_text=_("[team A, team B] rank indexes."))
    prev_places = models.JSONField(
        _("previous places"), null=True, blank=True, help_text=_("Seat positions by finish place in the previous deal (R8).")
    )
    state = models.JSONField(_("state snapshot"), default=dict, blank=True)
    seq = models.PositiveIntegerField(_("actions applied"), default=0)
    deadline = models.DateTimeField(
        _("think-time deadline"), null=True, blank=True, help_text=_("When the seats to act time out (R9.2).")
    )
    clock_at = models.DateTimeField(
        _("think-time timer"),
        null=True,
        blank=True,
        help_text=_("When the deal's one pending think-time timer fires (empty: none pending)."),
    )
    result = models.JSONField(_("result"), null=True, blank=True)
    started_at = models.DateTimeField(_("started"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("deal")
        verbose_name_plural = _("deals")
        ordering = ["match", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="deal_number_unique_per_match"),
            models.CheckConstraint(condition=Q(active_level__lte=LEVEL_MAX), name="deal_active_level_range"),
            models.CheckConstraint(
                condition=Q(finished_at__isnull=True) | Q(result__isnull=False), name="deal_finished_has_result"
            ),
        ]

    def __str__(self):
        return _("Deal %(number)s of %(match)s") % {"number": self.number, "match": self.match}

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None


class Action(models.Model):
    """One applied action of a deal, append-only; ``seq`` is its 1-based place in the log."""

    class Kind(models.TextChoices):
        TRIBUTE = "tribute", _("Tribute")
        RETURN = "return", _("Return")
        PLAY = "play", _("Play")
        PASS = "pass", _("Pass")

    class Actor(models.TextChoices):
        HUMAN = "human", _("Player")
        BOT = "bot", _("Bot")
        TIMEOUT = "timeout", _("Timeout")
        AUTOPILOT = "autopilot", _("Autopilot")

    deal = models.ForeignKey(Deal, verbose_name=_("deal"), on_delete=models.CASCADE, related_name="actions")
    seq = models.PositiveIntegerField(_("sequence number"))
    seat = models.PositiveSmallIntegerField(_("seat position"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    cards = models.JSONField(_("cards"), default=list, blank=True, help_text=_("Physical card ids 0-107."))
    reading = models.JSONField(_("declared reading"), null=True, blank=True, help_text=_("The play's chosen reading (R3.5)."))
    actor = models.CharField(_("actor"), max_length=10, choices=Actor.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("action")
        verbose_name_plural = _("actions")
        ordering = ["deal", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["deal", "seq"],
                name="action_seq_unique_per_deal",
                violation_error_message=_("Another action already took this place in the log."),
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="action_seq_from_one"),
            models.CheckConstraint(condition=Q(seat__lte=SEAT_COUNT - 1), name="action_seat_range"),
            models.CheckConstraint(condition=~Q(kind="pass") | Q(cards=[]), name="action_pass_has_no_cards"),
        ]

    def __str__(self):
        return _("#%(seq)s %(kind)s by seat %(number)s") % {
            "seq": self.seq,
            "kind": self.get_kind_display(),
            "number": self.seat + 1,
        }


class DealAnalysis(models.Model):
    """The expert's verdict on every decision of one finished deal (复盘,
    ``games.bots.analysis``), stored once per deal.

    ``version`` is the analysis version that wrote ``data``
    (``games.bots.analysis.ANALYSIS_VERSION``): a stronger evaluation bumps it, and an
    older row may be analysed again in place. ``done`` of ``total`` decisions are judged
    while it runs, for the progress bar. Only a finished deal is ever analysed (R9.3).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    deal = models.OneToOneField(Deal, verbose_name=_("deal"), on_delete=models.CASCADE, related_name="analysis")
    version = models.PositiveSmallIntegerField(_("analysis version"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.QUEUED)
    done = models.PositiveIntegerField(_("decisions judged"), default=0)
    total = models.PositiveIntegerField(_("decisions"), default=0)
    data = models.JSONField(_("verdicts"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("requested by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Empty when the site asked for it (a practice deal's end, a command)."),
    )
    requested_at = models.DateTimeField(_("requested"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        verbose_name = _("deal analysis")
        verbose_name_plural = _("deal analyses")
        ordering = ["-requested_at"]
        constraints = [
            models.CheckConstraint(condition=Q(done__lte=models.F("total")), name="analysis_done_within_total"),
            models.CheckConstraint(
                condition=~Q(status="done") | Q(data__isnull=False), name="analysis_done_has_verdicts"
            ),
        ]

    def __str__(self):
        return _("Analysis of %(deal)s") % {"deal": self.deal}

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class BotTicket(models.Model):
    """A single-use connection to the bot endpoint (``games.botapi``), for a program that
    can only be given a URL (the competition's own client programs): its owner chooses a
    table and seat on the bots page and gets ``ws://HOST/ws/bot/?ticket=...``, which opens
    one connection, within ``games.botapi.tickets.TICKET_LIFETIME`` of being issued, for
    that bot at that seat. The long-lived token never travels in a URL. Stored as the
    ticket's SHA-256, like tokens."""

    bot = models.ForeignKey("accounts.BotAccount", verbose_name=_("bot"), on_delete=models.CASCADE, related_name="tickets")
    table = models.ForeignKey(Table, verbose_name=_("table"), on_delete=models.CASCADE, related_name="bot_tickets")
    position = models.PositiveSmallIntegerField(_("position"), help_text=_("0-3 in code, shown as seats 1-4."))
    ticket_hash = models.CharField(_("ticket hash"), max_length=64, unique=True, help_text=_("SHA-256 of the ticket, hex."))
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    used_at = models.DateTimeField(_("used"), null=True, blank=True)

    class Meta:
        verbose_name = _("bot connection ticket")
        verbose_name_plural = _("bot connection tickets")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(position__lte=SEAT_COUNT - 1), name="bot_ticket_position_range"),
        ]

    def __str__(self):
        return _("Ticket of %(bot)s for seat %(number)s at table #%(table)s") % {
            "bot": self.bot, "number": self.position + 1, "table": self.table_id,
        }
