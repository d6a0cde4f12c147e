"""Forms for signing up, registering a guest account and naming oneself."""

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

DISPLAY_NAME_HELP = _("Shown at tables and on the leaderboard. Your username if left empty.")


class SignUpForm(UserCreationForm):
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False, help_text=DISPLAY_NAME_HELP)

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "display_name")


class ClaimGuestForm(forms.Form):
    """Register a guest account: choose a username and password; everything the guest
    played stays with the account."""

    username = forms.CharField(
        label=_("Username"),
        max_length=150,
        validators=[get_user_model().username_validator],
        help_text=_("Letters, digits and @/./+/-/_ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username"}),
    )
    display_name = forms.CharField(label=_("Display name"), max_length=40, required=False, help_text=DISPLAY_NAME_HELP)
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Password confirmation"), strip=False, widget=forms.PasswordInput(attrs={"autocomplete": "new-password"})
    )

    def __init__(self, *args, user, **kwargs):
        self.user = user
        super().__init__(*args, **kwargs)

    def clean_username(self):
        username = self.cleaned_data["username"]
        if get_user_model().objects.filter(username__iexact=username).exclude(pk=self.user.pk).exists():
            raise forms.ValidationError(_("That username is taken."))
        return username

    def clean(self):
        cleaned = super().clean()
        password1, password2 = cleaned.get("password1"), cleaned.get("password2")
        if password1 and password2 and password1 != password2:
            self.add_error("password2", _("The two password fields didn’t match."))
        elif password1:
            try:
                password_validation.validate_password(password1, self.user)
            except forms.ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class DisplayNameForm(forms.Form):
    display_name = forms.CharField(label=_("Display name"), max_length=40)


class BotForm(forms.Form):
    """Name a new bot account (accounts.bots)."""

    name = forms.CharField(label=_("Bot name"), max_length=30, help_text=_("Shown at tables with \"(bot)\" after it."))
