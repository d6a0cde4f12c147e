#!/usr/bin/env bash
# Known vulnerabilities in the site's pinned dependencies (requirements.txt, with what
# they pull in), by pip-audit against PyPI's advisory data:
#
#   bash scripts/audit.sh
#
# pip-audit runs from a virtual environment of its own (.audit-venv, from
# requirements-audit.txt). A vulnerability listed in .ci/audit-ignore, with why it does
# not apply, is passed over; any other fails (exit 1). When the advisory service cannot
# be reached, every package is reported as not audited, and the script says so and exits
# 3 without judging (.ci/run reports it and goes on).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .audit-venv/bin/pip-audit ]; then
  python3 -m venv .audit-venv
  .audit-venv/bin/pip install --quiet --disable-pip-version-check -r requirements-audit.txt 2>&1 | grep -v "^WARNING: Location" || true
fi
ignore=()
while read -r id _reason; do
  case "$id" in ''|'#'*) continue ;; esac
  ignore+=(--ignore-vuln "$id")
done < .ci/audit-ignore
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
set +e
.audit-venv/bin/pip-audit --requirement requirements.txt --progress-spinner off --format json --output "$report" \
  "${ignore[@]}"
status=$?
set -e
.audit-venv/bin/python - "$report" "$status" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
status = int(sys.argv[2])
deps = data.get("dependencies", [])
found = [(d["name"], d["version"], v["id"], ", ".join(v.get("fix_versions", [])) or "no fix yet")
         for d in deps for v in d.get("vulns", [])]
skipped = [d for d in deps if d.get("skip_reason")]
audited = len(deps) - len(skipped)
for name, version, vuln, fix in found:
    print(f"VULNERABLE: {name} {version}: {vuln} (fixed in {fix})")
print(f"pip-audit: {audited} of {len(deps)} packages audited, {len(found)} known vulnerabilities "
      f"(besides those written down in .ci/audit-ignore)")
if found:
    sys.exit(1)
if deps and audited == 0:
    print("pip-audit: the advisory service could not be reached from here: nothing was judged")
    sys.exit(3)
sys.exit(0 if status in (0, 1) and not found else status)
PY
