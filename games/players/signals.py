"""Season points follow the career ledger (R10.11): every ledger row a player gains or
loses points by (``accounts.services``) counts toward the season it was written in, in
the same transaction, without the accounts app knowing about seasons."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import PointsEntry
from games.players import services


@receiver(post_save, sender=PointsEntry, dispatch_uid="players-season-points")
def _count_season_points(sender, instance: PointsEntry, created: bool, raw: bool = False, **kwargs) -> None:
    if created and not raw:
        services.add_season_points(user_id=instance.user_id, delta=instance.delta, when=instance.created_at)
