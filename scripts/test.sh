#!/usr/bin/env bash
# `npm test`: installs what the tests need (npm packages, Debian's chromium),
# type-checks, runs unit tests, then end-to-end tests (real kubectl and
# client-node against the Node host, the workbench in Chromium), and prints
# spec coverage at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

# Dependencies: npm ci when node_modules is missing or older than the lockfile.
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> npm ci"
  npm ci --no-audit --no-fund || exit 1
fi

# Browser for the workbench tests: Debian's chromium (a test tool's own download is not used).
if [ ! -x /usr/bin/chromium ]; then
  echo "==> installing chromium (Debian)"
  if [ "$(id -u)" = "0" ]; then
    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || exit 1
  else
    (sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y chromium) || exit 1
  fi
fi

# The official Python client for the client e2e tests: Debian's python3-kubernetes.
if ! /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  echo "==> installing python3-kubernetes (Debian)"
  if [ "$(id -u)" = "0" ]; then
    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3-kubernetes) || exit 1
  else
    (sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y python3-kubernetes) || exit 1
  fi
fi

# etcd for the etcd backend and the several-hosts tests: Debian's etcd-server. Each test starts
# its own etcd on free loopback ports; without the binary those tests skip, and the summary says so.
etcd_note=""
if ! command -v etcd >/dev/null 2>&1; then
  echo "==> installing etcd-server (Debian)"
  if [ "$(id -u)" = "0" ]; then
    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server)
  else
    (sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server)
  fi
  if ! command -v etcd >/dev/null 2>&1; then
    etcd_note="etcd-server could not be installed: the etcd storage and several-hosts tests were skipped"
    echo "==> $etcd_note"
  fi
fi

mkdir -p build
status=0

echo "==> type-check"
npm run -s typecheck || status=1

echo "==> unit tests"
npx vitest run --project unit --reporter=default --reporter=json --outputFile.json=build/vitest-unit.json || status=1

echo "==> end-to-end tests"
npx vitest run --project e2e --reporter=default --reporter=json --outputFile.json=build/vitest-e2e.json || status=1

echo "==> spec coverage"
npx tsx scripts/spec-coverage.ts build/vitest-unit.json build/vitest-e2e.json || true

[ -n "$etcd_note" ] && echo "==> $etcd_note"

# The last line is the runner's summary over both projects.
node -e '
const fs = require("fs");
let passed = 0, failed = 0, skipped = 0;
for (const f of ["build/vitest-unit.json", "build/vitest-e2e.json"]) {
  try {
    const r = JSON.parse(fs.readFileSync(f, "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + (r.numTodoTests || 0);
  } catch { failed += 1; console.log("missing results: " + f); }
}
if (passed === 0) failed += 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);
' || status=1
exit $status
