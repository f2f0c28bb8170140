#!/usr/bin/env bash
# The network tcab's run and build containers (and the Kubernetes stand-in's
# pods) use, and the host firewall rules that keep them off the host.
#
# - Podman network $TCAB_RUN_NETWORK (default tcab-run): a bridge of its own,
#   DNS plugin off (containers use the host's upstream resolvers, not a
#   resolver on the gateway), outbound NAT to the internet as usual.
# - iptables/ip6tables chain TCAB-RUN-INPUT, jumped to from INPUT for
#   packets that arrive on that bridge only: replies to connections the host
#   opened pass; everything else a container sends to any of the host's own
#   addresses (the bridge's gateway, the other Podman networks' gateways
#   such as 10.88.0.1, eth0's address, link-local IPv6) is rejected.
#   Forwarded traffic (to the internet: model APIs, package registries) is
#   not touched, nor is any other network's traffic: other users of the
#   default `podman` network see no change.
# - Chain TCAB-RUN-PREVIEW, jumped to before the reject and empty: the hook
#   for the one exception by design, a watched run's preview listener (not
#   built yet). It will hold one ACCEPT for that listener's port, e.g.
#     iptables -A TCAB-RUN-PREVIEW -p tcp --dport PORT -j ACCEPT
#
# Idempotent: run it any number of times (`make podman` does, through
# start-podman.sh); it needs root for the firewall (it says so and fails
# without it).
set -euo pipefail

net="${TCAB_RUN_NETWORK:-tcab-run}"

if ! podman network exists "$net"; then
    podman network create --disable-dns --label org.tcab.network=run "$net" >/dev/null
    echo "run-network.sh: created Podman network $net"
fi
bridge="$(podman network inspect "$net" --format '{{.NetworkInterface}}')"
if [ -z "$bridge" ]; then
    echo "run-network.sh: Podman network $net has no bridge interface" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "run-network.sh: the firewall rules for $net ($bridge) need root" >&2
    exit 1
fi

rules() {  # $1: iptables or ip6tables, $2: the reject type
    local ipt="$1" reject="$2"
    command -v "$ipt" >/dev/null || { echo "run-network.sh: $ipt missing; $net left unguarded for it" >&2; return 1; }
    "$ipt" -w -N TCAB-RUN-PREVIEW 2>/dev/null || true
    "$ipt" -w -N TCAB-RUN-INPUT 2>/dev/null || true
    "$ipt" -w -F TCAB-RUN-INPUT
    "$ipt" -w -A TCAB-RUN-INPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
    "$ipt" -w -A TCAB-RUN-INPUT -j TCAB-RUN-PREVIEW
    "$ipt" -w -A TCAB-RUN-INPUT -p tcp -j REJECT --reject-with tcp-reset
    "$ipt" -w -A TCAB-RUN-INPUT -j REJECT --reject-with "$reject"
    "$ipt" -w -C INPUT -i "$bridge" -j TCAB-RUN-INPUT 2>/dev/null \
        || "$ipt" -w -I INPUT 1 -i "$bridge" -j TCAB-RUN-INPUT
}

rules iptables icmp-port-unreachable
rules ip6tables icmp6-port-unreachable
echo "run-network.sh: $net ($bridge): traffic to the host's own addresses is rejected"
