#!/usr/bin/env bash
# Builds the upstream binaries the real-cluster tests start (Kubernetes, etcd, containerd, helm) from
# their published Go modules, once per set of versions, into a cache outside the repository, and prints
# the folder that holds them. Nothing built here is committed. The versions live in the go.mod files
# beside this script (cluster/gen-go-mod.sh writes the Kubernetes one).
set -euo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
cache=${SMSLICE_TOOLS_CACHE:-$HOME/.cache/smslice-tools}

version() { (cd "$tools/$1" && go list -m -f '{{.Version}}' "$2"); }
kubernetes=$(version cluster k8s.io/kubernetes)
etcd=$(version cluster go.etcd.io/etcd/server/v3)
containerd=$(version containerd github.com/containerd/containerd/v2)
helm=$(version helm helm.sh/helm/v4)
# The go.mod/go.sum hash keeps two checkouts that pin the same versions differently apart.
sums=$(cat "$tools"/*/go.mod "$tools"/*/go.sum "$0" | sha256sum | cut -c1-8)
key=kubernetes-$kubernetes-etcd-$etcd-containerd-$containerd-helm-$helm-$sums
if [ -f "$cache/$key/complete" ]; then echo "$cache/$key/bin"; exit 0; fi

work=$cache/$key.partial
mkdir -p "$work/bin"
log() { echo "[tools/build.sh] $*" >&2; }
build() { # module, output name, package, ldflags
  [ -x "$work/bin/$2" ] && return
  log "building $2 ($3)"
  local start=$SECONDS
  (cd "$tools/$1" && go build -trimpath -ldflags "-s -w $4" -o "$work/bin/$2.tmp" "$3") >&2
  mv "$work/bin/$2.tmp" "$work/bin/$2"
  log "$2 built in $((SECONDS - start)) s"
}

minor=${kubernetes#v1.}; minor=${minor%%.*}
stamp="-X k8s.io/component-base/version.gitVersion=$kubernetes -X k8s.io/component-base/version.gitMajor=1"
stamp+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
stamp+=" -X k8s.io/client-go/pkg/version.gitVersion=$kubernetes"
for cmd in kube-apiserver kube-controller-manager kube-scheduler kube-proxy kubelet kubectl kubeadm; do
  build cluster "$cmd" "k8s.io/kubernetes/cmd/$cmd" "$stamp"
done
build cluster etcd go.etcd.io/etcd/server/v3 ""
cstamp="-X github.com/containerd/containerd/v2/version.Version=$containerd"
for cmd in containerd ctr containerd-shim-runc-v2; do
  build containerd "$cmd" "github.com/containerd/containerd/v2/cmd/$cmd" "$cstamp"
done
build helm helm helm.sh/helm/v4/cmd/helm "-X helm.sh/helm/v4/internal/version.version=$helm"

touch "$work/complete"
rm -rf "${cache:?}/$key"
mv "$work" "$cache/$key"
echo "$cache/$key/bin"
