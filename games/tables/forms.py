"""Forms of the lobby and the table page."""

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import SEAT_COUNT, Table
from games.rules.words import link_help_texts, rule_links


class CreateTableForm(forms.ModelForm):
    """Create a table: kind, tier (match tables), think time, bot speed and bot level."""

    class Meta:
        model = Table
        fields = ["kind", "tier", "think_time", "bot_speed", "bot_level", "card_counter"]
        labels = {"kind": _("Kind of table"), "tier": _("Tier (match tables)"),
                  "card_counter": _("Allow the card counter (friend tables)")}
        help_texts = {
            "kind": _("Match tables award career points; friend tables are private; practice is you and three bots."),
            "tier": "",
            "think_time": _("Seconds each player has per turn."),
            "card_counter": _("Each player may open a count of the cards still out. Practice tables always have it; "
                              "match tables never (R10.8)."),
        }

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        # No blank choice: a kind is always chosen; tournament tables are their tournament's (R13.3).
        self.fields["kind"].choices = [c for c in Table.Kind.choices if c[0] != Table.Kind.TOURNAMENT]
        self.fields["kind"].initial = Table.Kind.PRACTICE
        self.fields["tier"].required = False
        self.fields["tier"].choices = [("", _("— not a match table —")), *Table.Tier.choices]
        profile = getattr(user, "profile", None)
        if profile is not None and profile.is_guest:
            # Guests play practice and friend tables only (R10.1).
            self.fields["kind"].choices = [
                choice for choice in self.fields["kind"].choices if choice[0] != Table.Kind.MATCH
            ]
            self.fields["kind"].help_text = _("Guests play practice and friend tables; register to play match tables.")
            del self.fields["tier"]  # tiers are for match tables only
        link_help_texts(self)

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if kind == Table.Kind.MATCH and not cleaned.get("tier"):
            self.add_error("tier", rule_links(_("R10.1: choose a tier for a match table.")))
        if kind != Table.Kind.MATCH:
            cleaned["tier"] = ""
        if kind != Table.Kind.FRIEND:
            cleaned["card_counter"] = False  # practice tables always have it, match tables never (R10.8)
        return cleaned

    def _post_clean(self):
        # The table is created by games.tables.services.create_table, which sets the rest (host,
        # invitation code) and checks the rules; model validation here would flag those.
        pass


class SeatForm(forms.Form):
    """Which seat to take: 1-4 on screen, 0-3 in code."""

    position = forms.TypedChoiceField(choices=[(n, n + 1) for n in range(SEAT_COUNT)], coerce=int)


class JoinByCodeForm(forms.Form):
    code = forms.CharField(
        label=_("Invitation code"),
        max_length=12,
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters", "spellcheck": "false"}),
    )

    def clean_code(self):
        return self.cleaned_data["code"].strip().upper()
