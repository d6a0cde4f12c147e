"""Static files compressed and named by their content, without making a checkout that
has not run ``collectstatic`` unusable.

``collectstatic`` (scripts/dev.sh, the production steps in the README, a browser test's
served site) writes each file under a name with its content's hash beside a gzip copy, and
a manifest of the names; WhiteNoise serves the gzip copy to every browser that accepts it
and marks hashed names as cacheable for ever. Where no manifest lists a file (a fresh
clone's unit tests, a file added since the last ``collectstatic``), its plain name is used
and WhiteNoise serves it from the apps' folders (``WHITENOISE_USE_FINDERS``), as before.
"""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    # A file missing from the manifest keeps its plain name instead of failing the page.
    manifest_strict = False

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # no manifest entry and no collected file to hash
            return name
