"""Every deal finished before players' records existed gets them: who played each seat
is taken from the match's participants (who sat down when it started), the place, win
and level change from the deal's stored result. Ratings are not computed here: run
``manage.py recompute_ratings`` once to rate the match-table deals played before."""

from django.db import migrations


def backfill(apps, schema_editor):
    Deal = apps.get_model("games", "Deal")
    Participant = apps.get_model("games", "Participant")
    PlayedDeal = apps.get_model("players", "PlayedDeal")
    done = set(PlayedDeal.objects.values_list("deal_id", flat=True).distinct())
    seats_of = {}
    for participant in Participant.objects.filter(user__isnull=False, is_bot=False).values("match_id", "position", "user_id"):
        seats_of.setdefault(participant["match_id"], {})[participant["position"]] = participant["user_id"]
    rows = []
    deals = Deal.objects.filter(finished_at__isnull=False).select_related("match__table").order_by("pk")
    for deal in deals.iterator(chunk_size=500):
        result = deal.result or {}
        if deal.pk in done or "places" not in result or "winner_team" not in result:
            continue
        if result.get("seats"):
            humans = {p: seat["user"] for p, seat in enumerate(result["seats"]) if "user" in seat}
        else:
            humans = seats_of.get(deal.match_id, {})
        winner, advance = result["winner_team"], result.get("advance", 0)
        assisted = set(result.get("no_points_r10_8", []))
        for position, user_id in humans.items():
            rows.append(PlayedDeal(
                user_id=user_id, deal_id=deal.pk, match_id=deal.match_id, table_kind=deal.match.table.kind,
                position=position, place=result["places"].index(position) + 1, won=position % 2 == winner,
                advance=advance if position % 2 == winner else -advance, partner_id=humans.get((position + 2) % 4),
                assisted=position in assisted, finished_at=deal.finished_at,
            ))
        if len(rows) >= 2000:
            PlayedDeal.objects.bulk_create(rows, ignore_conflicts=True)
            rows = []
    PlayedDeal.objects.bulk_create(rows, ignore_conflicts=True)
    # Each analysed deal's accuracies (复盘) on its players' records.
    DealAnalysis = apps.get_model("games", "DealAnalysis")
    for analysis in DealAnalysis.objects.filter(status="done").only("deal_id", "data").iterator(chunk_size=200):
        accuracy = (analysis.data or {}).get("accuracy") or []
        for played in PlayedDeal.objects.filter(deal_id=analysis.deal_id):
            if played.position < len(accuracy) and accuracy[played.position] is not None:
                played.accuracy = accuracy[played.position]
                played.save(update_fields=["accuracy"])


class Migration(migrations.Migration):
    dependencies = [("players", "0001_initial"), ("games", "0005_deal_analysis")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
