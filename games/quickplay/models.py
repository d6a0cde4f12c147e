"""The quick-play queue (R10.9), kept in the database so every web process and worker
sees the same queue and a restart of any of them loses nothing.

One row per player (a player waits in one queue at a time): waiting in a tier since
``joined_at``, with a page of the site open as of ``seen_at``, until the matcher seats
them (``seated``, with the table) or they cancel (the row goes). Two friends who queue
together share a ``party`` and sit opposite each other.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.models import Table


class QueueEntry(models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting", _("Waiting")
        SEATED = "seated", _("Seated")

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="queue_entry"
    )
    tier = models.CharField(_("tier"), max_length=12, choices=Table.Tier.choices)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.WAITING)
    party = models.CharField(
        _("party"), max_length=12, help_text=_("Shared by two friends who queue together as partners.")
    )
    invite_code = models.CharField(
        _("invitation code"), max_length=12, unique=True, help_text=_("Lets a friend join this player as partner.")
    )
    joined_at = models.DateTimeField(_("waiting since"))
    seen_at = models.DateTimeField(_("page last open"), help_text=_("A player with no page open for 10 s has left."))
    table = models.ForeignKey(
        Table, verbose_name=_("table"), on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    seated_at = models.DateTimeField(_("seated"), null=True, blank=True)

    class Meta:
        verbose_name = _("quick-play queue entry")
        verbose_name_plural = _("quick-play queue")
        ordering = ["tier", "joined_at", "id"]
        indexes = [models.Index(fields=["status", "tier", "joined_at"], name="queue_waiting_order")]
        constraints = [
            models.CheckConstraint(
                condition=(Q(status="seated") & Q(seated_at__isnull=False)) | (Q(status="waiting") & Q(table__isnull=True)),
                name="queue_entry_seated_has_a_time",
            ),
        ]

    def __str__(self):
        return f"{self.user} {self.tier} {self.status}"
