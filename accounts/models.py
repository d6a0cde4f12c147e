"""People: a profile for every user, and the career points ledger.

``Profile.career_points`` is kept equal to the sum of the user's ledger rows
(``PointsEntry.delta``); only ``accounts.services`` writes either, in one transaction.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from . import career


class Profile(models.Model):
    """What the site knows about a person beyond the login: name, guest flag, points."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, verbose_name=_("user"), on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(_("display name"), max_length=40, help_text=_("Shown at tables and on the leaderboard."))
    is_guest = models.BooleanField(
        _("guest"), default=False, help_text=_("Guests play practice and friend tables and earn no career points (R10.1).")
    )
    career_points = models.PositiveIntegerField(_("career points"), default=0, help_text=_("Always the sum of the ledger."))
    language = models.CharField(
        _("language"), max_length=10, blank=True, choices=settings.LANGUAGES,
        help_text=_("The site's language for this player on every device; blank follows the browser."),
    )
    mute_talk = models.BooleanField(
        _("mute table talk"), default=False, help_text=_("Show no quick phrases or emotes of other players at tables."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        ordering = ["-career_points", "display_name"]
        indexes = [
            # The career points leaderboard (R10.11): registered players with points, most first.
            models.Index(models.F("career_points").desc(), models.F("user").asc(), name="profile_points_board",
                         condition=Q(is_guest=False, career_points__gt=0)),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(is_guest=False) | Q(career_points=0), name="profile_guest_has_no_points"),
        ]

    def __str__(self):
        return self.display_name or self.user.get_username()

    @property
    def tier(self) -> career.TierRule:
        """The highest tier the player's points open (R10.7)."""
        return career.highest_open_tier(self.career_points)

    @property
    def next_tier(self) -> career.TierRule | None:
        return career.next_tier(self.career_points)


class PointsEntry(models.Model):
    """One change of a player's career points, with its reason and where it came from."""

    class Reason(models.TextChoices):
        DEAL_WIN = "deal_win", _("Deal won")
        MATCH_WIN = "match_win", _("Match won")
        LEAVE_PENALTY = "leave_penalty", _("Left a match in progress")
        ADJUSTMENT = "adjustment", _("Adjustment by staff")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="points_entries")
    delta = models.IntegerField(_("change"))
    balance_after = models.PositiveIntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=20, choices=Reason.choices)
    note = models.CharField(_("note"), max_length=200, blank=True)
    table = models.ForeignKey(
        "games.Table", verbose_name=_("table"), on_delete=models.SET_NULL, null=True, blank=True, related_name="points_entries"
    )
    match = models.ForeignKey(
        "games.Match", verbose_name=_("match"), on_delete=models.SET_NULL, null=True, blank=True, related_name="points_entries"
    )
    deal = models.ForeignKey(
        "games.Deal", verbose_name=_("deal"), on_delete=models.SET_NULL, null=True, blank=True, related_name="points_entries"
    )
    created_at = models.DateTimeField(_("time"), auto_now_add=True)

    class Meta:
        verbose_name = _("points entry")
        verbose_name_plural = _("points ledger")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(delta=0), name="points_entry_changes_something"),
            # Awarding the same deal or match twice is impossible, however often the
            # settlement is retried.
            models.UniqueConstraint(
                fields=["user", "deal", "reason"], condition=Q(deal__isnull=False), name="points_entry_once_per_deal"
            ),
            models.UniqueConstraint(
                fields=["user", "match"],
                condition=Q(reason="match_win") & Q(match__isnull=False),
                name="points_entry_one_match_win",
            ),
        ]

    def __str__(self):
        return f"{self.user} {self.delta:+d} ({self.get_reason_display()})"


class BotAccount(models.Model):
    """A program that plays at tables through the bot endpoint (``games.botapi``), owned by
    a registered player. It has its own user, so its seat is an ordinary seat whose user
    is the bot's; that user never logs in (no usable password). The API token is shown
    once and stored only as its SHA-256 (``accounts.bots``). A bot plays friend tables it
    was invited to and its owner's practice tables; it never sits at a match table and
    never earns career points (R10.1)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("owner"), on_delete=models.CASCADE, related_name="bots")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("bot user"), on_delete=models.CASCADE, related_name="bot_account"
    )
    name = models.CharField(_("name"), max_length=30)
    token_hash = models.CharField(_("token hash"), max_length=64, unique=True, help_text=_("SHA-256 of the API token, hex."))
    token_hint = models.CharField(_("token starts with"), max_length=8, help_text=_("The token's first characters, to tell tokens apart."))
    approved = models.BooleanField(
        _("approved"), default=False, help_text=_("Only approved bots may connect (staff approve them, or the site allows every bot).")
    )
    revoked_at = models.DateTimeField(_("revoked"), null=True, blank=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_seen_at = models.DateTimeField(_("last connected"), null=True, blank=True)

    class Meta:
        verbose_name = _("bot account")
        verbose_name_plural = _("bot accounts")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(owner=models.F("user")), name="bot_account_not_its_own_owner"),
        ]

    def __str__(self):
        return self.name

    @property
    def is_active(self) -> bool:
        """May connect: approved and not revoked."""
        return self.approved and self.revoked_at is None


class RetiredName(models.Model):
    """A username kept from new accounts for a while after its account was deleted, so
    nobody can pass for the player at once (``accounts.deletion``). Only the name's
    SHA-256 (of its lower case) is kept, and the row is deleted once ``free_at`` has
    passed (the daily housekeeping job); sign-up and registration refuse the name until
    then."""

    name_hash = models.CharField(_("name hash"), max_length=64, unique=True, help_text=_("SHA-256 of the lower-case username, hex."))
    free_at = models.DateTimeField(_("free from"))

    class Meta:
        verbose_name = _("retired username")
        verbose_name_plural = _("retired usernames")
        ordering = ["free_at"]

    def __str__(self):
        return self.name_hash[:12]
