"""Admin for the quick-play queue (R10.9): who waits where, since when, with a page
open as of when; staff may take players out of the queue or run the matcher now."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.quickplay import services
from games.quickplay.models import QueueEntry


@admin.register(QueueEntry)
class QueueEntryAdmin(admin.ModelAdmin):
    list_display = ("user", "tier", "status", "party", "joined_at", "seen_at", "table", "seated_at")
    list_filter = ("tier", "status")
    search_fields = ("user__username", "user__profile__display_name", "invite_code", "party")
    raw_id_fields = ("user", "table")
    actions = ["take_out", "match_now"]

    def has_add_permission(self, request):
        return False  # players join through the site (services.join checks them)

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description=_("Take the selected players out of the queue"))
    def take_out(self, request, queryset):
        left = sum(services.leave(user=entry.user) for entry in queryset.select_related("user"))
        self.message_user(request, ngettext("%(count)d player left the queue.", "%(count)d players left the queue.",
                                            left) % {"count": left}, messages.SUCCESS)

    @admin.action(description=_("Run the matcher of every tier now"))
    def match_now(self, request, queryset):
        opened = services.match_all()
        self.message_user(request, ngettext("%(count)d table opened.", "%(count)d tables opened.", opened)
                          % {"count": opened}, messages.SUCCESS)
