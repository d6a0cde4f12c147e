"""The server processes set what they loaded at start-up aside from garbage collection
(guandan_site/memory.py): a full collection then walks only what came later, instead of
stopping the process for tens of milliseconds in the middle of a step."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_site.settings")
{start}
frozen, left = gc.get_freeze_count(), len(gc.get_objects())
began = time.perf_counter()
gc.collect()
print(frozen, left, time.perf_counter() - began)
"""

STARTS = {
    "web (the ASGI application)": "import guandan_site.asgi",
    "Celery worker process": "import django; django.setup()\n"
                             "from guandan_site.celery import _set_up_worker_process; _set_up_worker_process()",
}


@pytest.mark.parametrize("start", STARTS.values(), ids=STARTS.keys())
def test_a_server_process_freezes_what_it_loaded_at_start_up(start):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT), "PYTHONPATH": str(ROOT), "SECRET_KEY": "test"}
    result = subprocess.run([sys.executable, "-c", PROBE.format(start=start)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120, check=True)
    frozen, left, _seconds = result.stdout.split()
    # Django, the site and the libraries: well over fifty thousand objects, of which the
    # collector is left with a small part.
    assert int(frozen) > 50_000 and int(left) < int(frozen) / 5, result.stdout


def test_freezing_loads_the_urls_catalogues_and_live_templates_first():
    probe = (
        "import gc, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'guandan_site.settings')\n"
        "import django; django.setup()\n"
        "from django.urls import get_resolver; from django.template import engines\n"
        "from guandan_site.memory import freeze_startup_objects\n"
        "count = freeze_startup_objects()\n"
        "loader = engines['django'].engine.template_loaders[0]\n"
        "cached = sorted(key for key in getattr(loader, 'get_template_cache', {}) if str(key).startswith('live/'))\n"
        "print(count > 50_000, get_resolver()._populated, len(cached))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT), "PYTHONPATH": str(ROOT), "SECRET_KEY": "test", "DEBUG": "false"}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120, check=True)
    same, populated, templates = result.stdout.split()
    live = len(list((ROOT / "templates" / "live").glob("*.html")))
    assert same == "True" and populated == "True" and int(templates) == live, result.stdout + result.stderr


@pytest.mark.parametrize("start", STARTS.values(), ids=STARTS.keys())
def test_start_up_leaves_the_processs_context_without_the_url_resolvers_flags(start):
    # Every task of a web process inherits the main context's variables, and asgiref
    # copies and restores each of them whenever a call crosses between the event loop and
    # a thread. Populating the URLs in the main context left one per URL resolver there.
    probe = (
        "import contextvars, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'guandan_site.settings')\n"
        f"{start}\n"
        "from django.urls import get_resolver\n"
        "names = sorted(var.name for var in contextvars.copy_context())\n"
        "print(get_resolver()._populated, names.count('asgiref.local'), len(names))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "HOME": str(ROOT), "PYTHONPATH": str(ROOT), "SECRET_KEY": "test"}
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=120, check=True)
    populated, locals_set, variables = result.stdout.split()
    assert populated == "True" and int(locals_set) <= 2 and int(variables) <= 4, result.stdout + result.stderr
