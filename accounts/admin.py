"""Admin for people: users with their profile, and the career points ledger.

Points never change by editing a number: staff add an adjustment row to the ledger, which
moves the player's points with it (``accounts.services.adjust_points``).
"""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from . import bots, services
from .models import BotAccount, PointsEntry, Profile

User = get_user_model()


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ("display_name", "is_guest", "career_points")
    readonly_fields = ("is_guest", "career_points")


admin.site.unregister(User)


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    inlines = [ProfileInline]
    list_display = ("username", "display_name", "is_guest", "career_points", "is_staff", "date_joined")
    list_filter = ("profile__is_guest", "is_staff", "is_superuser", "is_active")
    search_fields = ("username", "email", "profile__display_name")
    list_select_related = ("profile",)

    @admin.display(description=_("display name"), ordering="profile__display_name")
    def display_name(self, user):
        return user.profile.display_name

    @admin.display(description=_("guest"), boolean=True, ordering="profile__is_guest")
    def is_guest(self, user):
        return user.profile.is_guest

    @admin.display(description=_("career points"), ordering="profile__career_points")
    def career_points(self, user):
        return user.profile.career_points


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("display_name", "user", "is_guest", "career_points", "tier_label", "created_at")
    list_filter = ("is_guest",)
    search_fields = ("display_name", "user__username")
    readonly_fields = ("user", "is_guest", "career_points", "created_at")
    fields = ("user", "display_name", "is_guest", "career_points", "created_at")
    list_select_related = ("user",)

    @admin.display(description=_("tier"))
    def tier_label(self, profile):
        return profile.tier.label

    def has_add_permission(self, request):
        # Profiles come with their users (accounts.signals).
        return False


class AdjustmentForm(forms.ModelForm):
    class Meta:
        model = PointsEntry
        fields = ("user", "delta", "note")
        help_texts = {"delta": _("Points to add (negative to take). The balance never goes below 0.")}

    def clean_delta(self):
        delta = self.cleaned_data["delta"]
        if delta == 0:
            raise forms.ValidationError(_("An adjustment changes the points."))
        return delta

    def clean_user(self):
        user = self.cleaned_data["user"]
        if user.profile.is_guest:
            raise forms.ValidationError(_("Guests have no career points (R10.1)."))
        return user

    def clean(self):
        cleaned = super().clean()
        user, delta = cleaned.get("user"), cleaned.get("delta")
        if user is not None and delta is not None and delta < 0 and user.profile.career_points == 0:
            self.add_error("delta", _("The player has 0 points; the balance never goes below 0."))
        return cleaned

    def _post_clean(self):
        # The row is written by accounts.services.adjust_points, which sets the rest.
        pass


@admin.register(PointsEntry)
class PointsEntryAdmin(admin.ModelAdmin):
    """The ledger: rows are added (as adjustments) and read, never edited or deleted."""

    list_display = ("created_at", "user", "delta", "balance_after", "reason", "table", "match", "deal")
    list_filter = ("reason", "table__tier")
    search_fields = ("user__username", "user__profile__display_name", "=table__id", "=match__id", "=deal__id")
    list_select_related = ("user", "table", "match", "deal")
    raw_id_fields = ("user",)
    date_hierarchy = "created_at"

    def get_form(self, request, obj=None, **kwargs):
        if obj is None:
            kwargs["form"] = AdjustmentForm
        return super().get_form(request, obj, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ("user", "delta", "note")
        return ("user", "delta", "balance_after", "reason", "note", "table", "match", "deal", "created_at")

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.get_fields(request, obj)

    def has_change_permission(self, request, obj=None):
        # Viewing stays possible (view permission); nothing here edits a ledger row.
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        entry = services.adjust_points(user=data["user"], delta=data["delta"], note=data["note"])
        if entry is None:
            self.message_user(request, _("The balance was already 0: nothing changed."), messages.WARNING)
            return
        # Let the admin's success message and log entry point at the row written.
        obj.pk = entry.pk
        obj.user = entry.user
        obj.delta = entry.delta
        obj.balance_after = entry.balance_after
        obj.reason = entry.reason
        obj.created_at = entry.created_at


@admin.register(BotAccount)
class BotAccountAdmin(admin.ModelAdmin):
    """Bot accounts (accounts/bots.py): staff approve them; the token is never shown here
    (only its hash is stored). Revoking is the owner's, or staff's by setting the time."""

    list_display = ("name", "owner", "user", "approved", "revoked_at", "last_seen_at", "created_at")
    list_filter = ("approved",)
    search_fields = ("name", "owner__username", "user__username")
    readonly_fields = ("owner", "user", "token_hash", "token_hint", "created_at", "last_seen_at")
    fields = ("name", "owner", "user", "approved", "revoked_at", "token_hint", "token_hash", "created_at", "last_seen_at")
    list_select_related = ("owner", "user")
    actions = ["approve"]

    def has_add_permission(self, request):
        return False  # owners create bots on their bots page, where the token is shown once

    @admin.action(description=_("Approve the selected bots"))
    def approve(self, request, queryset):
        count = bots.approve_bots(bot_ids=queryset.values_list("pk", flat=True))
        self.message_user(request, _("%(count)s bots approved.") % {"count": count}, messages.SUCCESS)


# Login throttling (django-axes): the counted wrong passwords per username and client;
# deleting a row lifts its lockout. (Axes' access logs are switched off in settings.)
admin.site.register(AccessAttempt, AccessAttemptAdmin)

# Axes ships no Chinese catalogue: the labels its admin shows here are listed for this
# project's catalogue (locale/), which Django consults first.
AXES_ADMIN_WORDS = (
    gettext_noop("Axes"), gettext_noop("access attempt"), gettext_noop("access attempts"),
    gettext_noop("User Agent"), gettext_noop("IP Address"), gettext_noop("Username"),
    gettext_noop("HTTP Accept"), gettext_noop("Path"), gettext_noop("Attempt Time"),
    gettext_noop("GET Data"), gettext_noop("POST Data"), gettext_noop("Failed Logins"),
    gettext_noop("Form Data"), gettext_noop("Meta Data"), gettext_noop("Locked Out"),
    gettext_noop("Clean up expired attempts"), gettext_noop("Not set"), gettext_noop("Attempt Remaining"),
    gettext_noop("Expires At"), gettext_noop("The time when access attempt expires and is no longer valid."),
)
