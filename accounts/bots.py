"""Bot accounts: created by a registered player, approved, connected by token, revoked.

A bot account (``BotAccount``) has its own user, so the bot sits at a table as that
user. Its API token is ``secrets.token_urlsafe(32)``: shown to the owner once, when the
bot is created or its token rotated, and stored only as its SHA-256 (hex), so neither the
database nor the admin can show it again. A lost or leaked token is replaced by rotating
it: the old one stops at once, open connections included.

Rotating and revoking send ``bot_access_changed`` once committed; the bot endpoint
(``games.botapi.consumer``) closes that bot's open connections on it.

Every function takes keyword arguments only and runs in one transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import BotAccount, Profile
from .services import AccountError

MAX_BOTS_PER_OWNER = 5
TOKEN_BYTES = 32

# Sent with ``bot_id`` once a bot's token was rotated or the bot revoked (on commit).
bot_access_changed = Signal()


@dataclass(frozen=True)
class NewBot:
    """A freshly created bot and its token, which is never shown again."""

    bot: BotAccount
    token: str


def hash_token(token: str) -> str:
    """The stored form of a token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def auto_approve() -> bool:
    """Whether new bots may connect at once (``GUANDAN_BOTS_AUTO_APPROVE``), rather than
    after staff approve them in the admin."""
    return bool(getattr(settings, "GUANDAN_BOTS_AUTO_APPROVE", False))


def create_bot(*, owner, name: str) -> NewBot:
    """Create a bot account for ``owner`` (a registered player, R10.1) with its own user
    and a new token; the token is returned here and nowhere else."""
    name = (name or "").strip()
    if not name:
        raise AccountError(_("A bot needs a name."))
    User = get_user_model()
    with transaction.atomic():
        profile = Profile.objects.select_for_update().get(user=owner)
        if profile.is_guest:
            raise AccountError(_("R10.1: bot accounts are for registered players; register your guest account first."))
        if BotAccount.objects.filter(user=owner).exists():
            raise AccountError(_("A bot cannot own bots."))
        active = BotAccount.objects.filter(owner=owner, revoked_at__isnull=True).count()
        if active >= MAX_BOTS_PER_OWNER:
            raise AccountError(
                _("You have %(count)s bots; revoke one before creating another.") % {"count": active}
            )
        while True:
            username = f"bot-{secrets.token_hex(5)}"
            if not User.objects.filter(username=username).exists():
                break
        user = User(username=username)
        user.set_unusable_password()
        user.save()
        Profile.objects.filter(user=user).update(display_name=(_("%(name)s (bot)") % {"name": name[:30]})[:40])
        token = secrets.token_urlsafe(TOKEN_BYTES)
        bot = BotAccount.objects.create(
            owner=owner, user=user, name=name[:30], token_hash=hash_token(token), token_hint=token[:6],
            approved=auto_approve(),
        )
    return NewBot(bot=bot, token=token)


def _announce_access_changed(bot_id: int) -> None:
    transaction.on_commit(lambda: bot_access_changed.send(sender=BotAccount, bot_id=bot_id))


def revoke_bot(*, owner, bot_id: int) -> BotAccount:
    """Revoke one of ``owner``'s bots: its token is refused from now on, and its open
    connections are closed."""
    with transaction.atomic():
        bot = BotAccount.objects.select_for_update().filter(pk=bot_id, owner=owner).first()
        if bot is None:
            raise AccountError(_("You have no such bot."))
        if bot.revoked_at is None:
            bot.revoked_at = timezone.now()
            bot.save(update_fields=["revoked_at"])
            _announce_access_changed(bot.pk)
    return bot


def rotate_token(*, owner, bot_id: int) -> NewBot:
    """Give one of ``owner``'s bots a new token, shown here once: the old token is
    refused from now on and the bot's open connections are closed (a leaked token is
    dealt with this way, without creating another bot)."""
    with transaction.atomic():
        bot = BotAccount.objects.select_for_update().filter(pk=bot_id, owner=owner).first()
        if bot is None:
            raise AccountError(_("You have no such bot."))
        if bot.revoked_at is not None:
            raise AccountError(_("%(name)s was revoked; create another bot instead.") % {"name": bot.name})
        token = secrets.token_urlsafe(TOKEN_BYTES)
        bot.token_hash, bot.token_hint = hash_token(token), token[:6]
        bot.save(update_fields=["token_hash", "token_hint"])
        _announce_access_changed(bot.pk)
    return NewBot(bot=bot, token=token)


def approve_bots(*, bot_ids) -> int:
    """Staff: let these bots connect. Returns how many were approved."""
    return BotAccount.objects.filter(pk__in=list(bot_ids), revoked_at__isnull=True).update(approved=True)


def bot_for_token(token: str | None) -> BotAccount | None:
    """The active bot (approved, not revoked) whose token this is, or None."""
    if not token or not isinstance(token, str) or len(token) > 200:
        return None
    digest = hash_token(token)
    bot = BotAccount.objects.select_related("user", "owner").filter(token_hash=digest).first()
    if bot is None or not hmac.compare_digest(bot.token_hash, digest) or not bot.is_active:
        return None
    BotAccount.objects.filter(pk=bot.pk).update(last_seen_at=timezone.now())
    return bot


def is_bot_user(user) -> bool:
    """Whether ``user`` is a bot account's user (one query unless already loaded)."""
    if user is None or not getattr(user, "pk", None):
        return False
    return BotAccount.objects.filter(user_id=user.pk).exists()


def may_still_play(bot_id: int, token_hash: str) -> bool:
    """Whether the bot ``bot_id`` may still play with the token it connected under
    (approved, not revoked, the token not rotated since): checked before each of its
    answers, so a revoked or rotated token stops at once, even on an open connection."""
    return BotAccount.objects.filter(
        pk=bot_id, approved=True, revoked_at__isnull=True, token_hash=token_hash,
    ).exists()
