#!/usr/bin/env bash
# Fuzzes the public API from its own OpenAPI document with schemathesis and fails on any 5xx:
# bad input must get a 4xx, never a server error.
#
#   scripts/fuzz-api.sh [max-examples-per-operation=10] [max-seconds=240]
#
# Without RAMP_URL and RAMP_API_KEY it starts the local stack itself (`npm start` on a free port,
# 127.0.0.1 only) on data of its own under .data/fuzz, and stops and removes it afterwards: the
# fuzzer deletes people and locks sign-ins out, and a developer's kept data must not be its
# playground. On that stack it also creates an admin operator and signs it in, so the console routes
# are explored too. Against a stack of your own, set RAMP_ADMIN_TOKEN too so the admin routes are
# explored. schemathesis is installed into .tools/schemathesis on first use. Reports (HAR of every
# request) go to .data/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
MAX_EXAMPLES=${1:-10}
MAX_SECONDS=${2:-240}
OUT=$ROOT/.data/fuzz
mkdir -p "$OUT"

VENV=$ROOT/.tools/schemathesis
if [ ! -x "$VENV/bin/schemathesis" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis>=4,<5"
fi

STACK_PID=""
STACK_DATA=$OUT/stack-data
cleanup() {
  if [ -n "$STACK_PID" ]; then
    # The stack's whole process group (npm, the services, NATS, the database), which this script started.
    kill -TERM -- "-$STACK_PID" 2>/dev/null || true
    for _ in $(seq 1 30); do
      kill -0 -- "-$STACK_PID" 2>/dev/null || break
      sleep 1
    done
    rm -rf "$STACK_DATA"
  fi
}
trap cleanup EXIT

if [ -z "${RAMP_URL:-}" ] || [ -z "${RAMP_API_KEY:-}" ]; then
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  RAMP_URL=http://127.0.0.1:$PORT
  # The fuzzer is one client sending far more than a business would: lift the per-key rate limit
  # so it explores the API instead of collecting 429s.
  : >"$OUT/stack.log"
  rm -rf "$STACK_DATA"
  setsid env PORT="$PORT" RAMP_DATA_DIR="$STACK_DATA" LOG_LEVEL=warn RATE_LIMIT_PER_SECOND=10000 RATE_LIMIT_BURST=10000 \
    npm start >"$OUT/stack.log" 2>&1 &
  STACK_PID=$!
  for _ in $(seq 1 300); do
    RAMP_API_KEY=$(sed -n 's/.*Sandbox key: *\(rk_[A-Za-z0-9_-]*\).*/\1/p' "$OUT/stack.log" | head -n1 || true)
    [ -n "$RAMP_API_KEY" ] && break
    kill -0 "$STACK_PID" 2>/dev/null || { cat "$OUT/stack.log"; echo "stack did not start" >&2; exit 1; }
    sleep 1
  done
  [ -n "$RAMP_API_KEY" ] || { echo "no sandbox key after 300 s" >&2; exit 1; }
  RAMP_ADMIN_TOKEN=$(sed -n 's/.*Admin token: *\([^ ]*\).*/\1/p' "$OUT/stack.log" | head -n1 || true)
fi
# The admin routes take a bearer token, the public ones an API key: send both, so each operation is
# explored past its authentication instead of only collecting 401s.
ADMIN_HEADER=()
[ -n "${RAMP_ADMIN_TOKEN:-}" ] && ADMIN_HEADER=(--header "authorization: Bearer $RAMP_ADMIN_TOKEN")
# The console routes (money operations among them) take an operator's session: on the stack this
# script started, an admin operator is created and signed in, and its cookie and CSRF token go with
# every request. Signing out would end that session halfway, so that one operation is left out.
CONSOLE_HEADERS=()
if [ -n "$STACK_PID" ] && [ -n "${RAMP_ADMIN_TOKEN:-}" ]; then
  mapfile -t CONSOLE_HEADERS < <(python3 - "$RAMP_URL" "$RAMP_ADMIN_TOKEN" <<'PY'
import json, secrets, sys, urllib.request
url, token = sys.argv[1], sys.argv[2]
email, password = "fuzz-operator@example.com", secrets.token_urlsafe(24)
def post(path, body, headers):
    req = urllib.request.Request(url + path, json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", **headers})
    return urllib.request.urlopen(req, timeout=30)
post("/admin/v1/operators", {"email": email, "password": password, "role": "admin"},
     {"authorization": f"Bearer {token}"})
signed_in = post("/console/v1/session", {"email": email, "password": password}, {})
cookie = signed_in.headers["set-cookie"].split(";")[0]
print("--header"); print(f"cookie: {cookie}")
print("--header"); print(f"x-csrf-token: {json.load(signed_in)['csrfToken']}")
print("--exclude-operation-id"); print("consoleSignOut")
PY
  )
  [ "${#CONSOLE_HEADERS[@]}" -eq 6 ] || { echo "could not sign an operator in to the console" >&2; exit 1; }
fi

set +e
# From the report folder: schemathesis keeps a cache (.schemathesis/) in its working directory, which
# in the repository root would be linted by biome.
cd "$OUT"
"$VENV/bin/schemathesis" run "$RAMP_URL/openapi.json" \
  --url "$RAMP_URL" \
  --header "x-api-key: $RAMP_API_KEY" \
  "${ADMIN_HEADER[@]}" \
  "${CONSOLE_HEADERS[@]}" \
  --checks not_a_server_error \
  --max-examples "$MAX_EXAMPLES" \
  --max-time "$MAX_SECONDS" \
  --workers 2 \
  --request-timeout 30 \
  --seed "${FUZZ_SEED:-20260101}" \
  --generation-database none \
  --report har --report-har-path "$OUT/requests.har" \
  --no-color
STATUS=$?
set -e

python3 - "$OUT/requests.har" <<'EOF'
import json, sys
entries = json.load(open(sys.argv[1]))["log"]["entries"]
errors = [e for e in entries if e["response"]["status"] >= 500]
print(f"fuzz: {len(entries)} requests, {len(errors)} answered 5xx")
for e in errors[:20]:
    print(f"  {e['response']['status']} {e['request']['method']} {e['request']['url']}")
sys.exit(1 if errors else 0)
EOF
exit $STATUS
