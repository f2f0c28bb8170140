#!/usr/bin/env bash
# Start Podman's Docker-compatible API at $DOCKER_HOST (a unix socket) unless
# something already answers there, then wait until it answers; then set up
# the run containers' network and its firewall (run-network.sh, idempotent).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

DOCKER_HOST="${DOCKER_HOST:-unix:///run/tcab/podman.sock}"
case "$DOCKER_HOST" in
    unix://*) sock="${DOCKER_HOST#unix://}" ;;
    *) echo "start-podman.sh: DOCKER_HOST=$DOCKER_HOST is not a unix socket; nothing to start" >&2; exit 0 ;;
esac

answers() {
    curl -fsS --max-time 2 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1
}

if answers; then
    echo "start-podman.sh: podman answers at $sock"
    exec bash "$here/run-network.sh"
fi

mkdir -p "$(dirname "$sock")"
rm -f "$sock"
log="$(dirname "$sock")/podman-service.log"
# setsid: the service must outlive make and the shell that started it.
setsid nohup podman system service --time=0 "unix://$sock" >"$log" 2>&1 </dev/null &
for _ in $(seq 1 100); do
    if answers; then
        echo "start-podman.sh: podman started at $sock (log: $log)"
        exec bash "$here/run-network.sh"
    fi
    sleep 0.2
done
echo "start-podman.sh: podman did not answer at $sock within 20 s; see $log:" >&2
tail -n 20 "$log" >&2 || true
exit 1
