#!/usr/bin/env bash
# Debian packages the real-cluster tests need on the machine that runs them (root): runc (containerd's
# runtime; crun fails on hybrid cgroups), the CNI plugins, iptables and conntrack (kube-proxy),
# mmdebstrap and podman (the offline image build). Does nothing when all are there.
set -euo pipefail
packages=(runc containernetworking-plugins iptables conntrack mmdebstrap podman)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
