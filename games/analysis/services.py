"""Analysis of finished deals (复盘): asking for one, running it, resuming after a crash.

The verdicts come from ``games.bots.analysis.analyse`` (the same evaluation as the
table's suggestion and coach, with the same seed, so the three never disagree); this
module stores them once per deal (``DealAnalysis``) and runs the work off the request:

- ``request_analysis`` checks who asks and for what, writes the row (``queued``) and,
  once committed, schedules the task ``analyse_deal`` as background work (its own Celery
  queue in production, its own thread in the embedded mode). Asking again while one is
  queued, running or done at the current version changes nothing (a double click);
  ``force`` (staff, the command) analyses again.
- ``run_analysis`` (the task's body) judges every decision, sending progress to the
  replay pages of the deal (channel group ``analysis-<deal id>``) as it goes, then stores
  the verdicts. It runs a row once: a duplicate or late task finds it taken and leaves.
- ``resume_analyses`` (the periodic sweep) sends again what a crash or restart left
  queued or running, so an analysis asked for is never lost.

Only a finished deal is ever analysed: the verdicts name the better move from the acting
seat's hand, which no one may read while the deal is in play (R9.3).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.bots.analysis import ANALYSIS_VERSION, analyse
from games.live.broadcast import send_to_group
from games.live.scheduler import schedule
from games.models import Deal, DealAnalysis, Participant
from games.players import services as player_services
from games.replays.log import engine_actions, replay_states

log = logging.getLogger(__name__)

# The seed of the table's suggestion and coach (games.live.consumer): the analysis plays
# the candidates out on the same sampled deals, so its "better" is the suggestion.
SEED = 0
PROGRESS_INTERVAL = 0.25  # seconds between progress events while an analysis runs
QUEUED_PATIENCE = timedelta(seconds=60)  # a queued analysis not started by then is sent again
RUNNING_PATIENCE = timedelta(minutes=5)  # a running one not finished by then died with its worker


class AnalysisError(Exception):
    """A request for an analysis that is refused; ``message`` says why, citing the rule."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class AnalysisBusy(AnalysisError):
    """Refused for now: too many analyses wait (the player's, or the site's)."""


def analysis_group(deal_id: int) -> str:
    """The channel group of the replay pages of one deal waiting for its analysis."""
    return f"analysis-{deal_id}"


def may_request(deal: Deal, user) -> bool:
    """Staff, and the players of the deal's match, may ask for its analysis."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or Participant.objects.filter(match_id=deal.match_id, user=user).exists()


def is_current(analysis: DealAnalysis | None) -> bool:
    """Done by the current evaluation (an older version may be analysed again)."""
    return analysis is not None and analysis.status == DealAnalysis.Status.DONE and analysis.version >= ANALYSIS_VERSION


def request_analysis(*, deal: Deal, user=None, force: bool = False, send: bool = True) -> DealAnalysis | None:
    """Ask for the analysis of ``deal``: by ``user`` (a player of the deal or staff), or
    by the site when ``user`` is None. Returns the row, queued or as it already was.
    ``send=False`` queues the row without sending the task (the command runs it itself).

    Analyses cost seconds of CPU each, so what waits is bounded (``_refuse_more``): a
    player has at most ``GUANDAN_ANALYSES_WAITING_PER_PLAYER`` waiting and asks for at
    most ``GUANDAN_ANALYSES_PER_HOUR`` an hour, and the site queues at most
    ``GUANDAN_ANALYSIS_QUEUE``; beyond, a player is refused with the reason, and the
    site's own request (a practice deal's end) is dropped (None): the player can ask
    from the replay later. Staff and the command are not limited."""
    if not deal.is_finished:
        raise AnalysisError(_(
            "This deal is not finished: only a finished deal is analysed, since the analysis "
            "shows every hand (hidden information, R9.3)."
        ))
    if user is not None and not may_request(deal, user):
        raise AnalysisError(_("Only the players of a deal, and staff, may ask for its analysis."))
    with transaction.atomic():
        analysis = DealAnalysis.objects.select_for_update().filter(deal=deal).first()
        if analysis is not None and not force and (analysis.is_pending or is_current(analysis)):
            return analysis
        if analysis is not None and force and analysis.status == DealAnalysis.Status.RUNNING:
            return analysis  # running now: it finishes with the current evaluation anyway
        if send and not force:
            refusal = _refuse_more(user)
            if refusal is not None:
                if user is None:
                    log.info("deal %s: not analysed at its end, the analysis queue is full", deal.pk)
                    return None
                raise AnalysisBusy(refusal)
        if analysis is None:
            analysis = DealAnalysis(deal=deal)
        analysis.version = ANALYSIS_VERSION
        analysis.status = DealAnalysis.Status.QUEUED
        analysis.done = analysis.total = 0
        analysis.data = None
        analysis.error = ""
        analysis.requested_by = user if user is not None and user.is_authenticated else None
        analysis.requested_at = timezone.now()
        analysis.started_at = analysis.finished_at = None
        analysis.save()
        if send:
            _send_when_committed(analysis)
    return analysis


WAITING = (DealAnalysis.Status.QUEUED, DealAnalysis.Status.RUNNING)


def _refuse_more(user) -> str | None:
    """Why one more analysis may not wait now, if so (see ``request_analysis``)."""
    from django.conf import settings

    from guandan_site import throttle

    if user is not None and user.is_staff:
        return None  # staff look after the site: never limited
    player = user is not None and user.is_authenticated
    if player:
        mine = DealAnalysis.objects.filter(requested_by=user, status__in=WAITING).count()
        if mine >= settings.GUANDAN_ANALYSES_WAITING_PER_PLAYER:
            return ngettext(
                "You already have %(count)s analysis waiting; ask for another when it is done.",
                "You already have %(count)s analyses waiting; ask for another when one is done.", mine,
            ) % {"count": mine}
    waiting = DealAnalysis.objects.filter(status__in=WAITING).count()
    if waiting >= settings.GUANDAN_ANALYSIS_QUEUE:
        return ngettext(
            "The analysis queue is full (%(count)s deal waiting); try again in a few minutes.",
            "The analysis queue is full (%(count)s deals waiting); try again in a few minutes.", waiting,
        ) % {"count": waiting}
    if player and not throttle.allow_user(user, "analysis", limit=settings.GUANDAN_ANALYSES_PER_HOUR, period=3600):
        return ngettext(
            "You have asked for %(count)s analysis this hour; ask again later.",
            "You have asked for %(count)s analyses this hour; ask again later.", settings.GUANDAN_ANALYSES_PER_HOUR,
        ) % {"count": settings.GUANDAN_ANALYSES_PER_HOUR}
    return None


def _send_when_committed(analysis: DealAnalysis) -> None:
    analysis_id, deal_id = analysis.pk, analysis.deal_id

    def send():
        schedule("analyse_deal", analysis_id, delay=0, background=True)
        _announce(deal_id, DealAnalysis.Status.QUEUED, 0, 0)

    transaction.on_commit(send)


def _announce(deal_id: int, status: str, done: int, total: int) -> None:
    """Tell the deal's replay pages how far its analysis is (never raises: the stored
    row is the truth, and a page reloaded reads it)."""
    try:
        send_to_group(analysis_group(deal_id), {
            "type": "analysis.progress", "deal": deal_id, "status": status, "done": done, "total": total,
        })
    except Exception:
        log.warning("deal %s: analysis progress not sent", deal_id, exc_info=True)


def run_analysis(analysis_id: int) -> bool:
    """Judge every decision of the row's deal and store the verdicts; False when there is
    nothing to do (already taken, done, or gone)."""
    with transaction.atomic():
        analysis = DealAnalysis.objects.select_for_update().select_related("deal").filter(pk=analysis_id).first()
        if analysis is None or analysis.status != DealAnalysis.Status.QUEUED:
            return False
        analysis.status = DealAnalysis.Status.RUNNING
        analysis.started_at = timezone.now()
        analysis.save(update_fields=["status", "started_at"])
    deal = analysis.deal
    try:
        rows = list(deal.actions.order_by("seq"))
        states = replay_states(deal, rows)
        actions = engine_actions(deal, rows)
        DealAnalysis.objects.filter(pk=analysis_id).update(total=len(actions))
        _announce(deal.pk, DealAnalysis.Status.RUNNING, 0, len(actions))
        last_sent = [time.monotonic()]

        def progress(done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last_sent[0] < PROGRESS_INTERVAL:
                return
            last_sent[0] = now
            DealAnalysis.objects.filter(pk=analysis_id).update(done=done)
            _announce(deal.pk, DealAnalysis.Status.RUNNING, done, total)

        result = analyse(states, actions, rng_seed=SEED, progress=progress)
    except Exception as error:
        log.exception("deal %s: the analysis failed", deal.pk)
        DealAnalysis.objects.filter(pk=analysis_id).update(
            status=DealAnalysis.Status.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
        _announce(deal.pk, DealAnalysis.Status.FAILED, 0, 0)
        return False
    total = len(actions)
    data = result.to_json()
    with transaction.atomic():
        if DealAnalysis.objects.filter(pk=analysis_id, status=DealAnalysis.Status.RUNNING).update(
            status=DealAnalysis.Status.DONE, data=data, version=result.version, done=total, total=total,
            finished_at=timezone.now(),
        ):
            # Each player's accuracy goes on their record of the deal (the player page).
            player_services.record_accuracy(deal=deal, accuracy=data["accuracy"])
    _announce(deal.pk, DealAnalysis.Status.DONE, total, total)
    return True


def resume_analyses(now=None) -> int:
    """Send again the analyses a crash or restart left behind: queued and never started
    within ``QUEUED_PATIENCE``, or running for longer than ``RUNNING_PATIENCE`` (its
    worker died). Returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    stale = DealAnalysis.objects.filter(
        status=DealAnalysis.Status.QUEUED, requested_at__lt=now - QUEUED_PATIENCE
    ).values_list("pk", flat=True)
    for analysis_id in stale:
        # Requested again "now", so the next sweep waits its patience before another send.
        if DealAnalysis.objects.filter(pk=analysis_id, status=DealAnalysis.Status.QUEUED).update(requested_at=now):
            schedule("analyse_deal", analysis_id, delay=0, background=True)
            sent += 1
    dead = DealAnalysis.objects.filter(
        status=DealAnalysis.Status.RUNNING, started_at__lt=now - RUNNING_PATIENCE
    ).values_list("pk", flat=True)
    for analysis_id in dead:
        if DealAnalysis.objects.filter(pk=analysis_id, status=DealAnalysis.Status.RUNNING).update(
            status=DealAnalysis.Status.QUEUED, requested_at=now, done=0, started_at=None
        ):
            schedule("analyse_deal", analysis_id, delay=0, background=True)
            sent += 1
    return sent
