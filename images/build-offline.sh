#!/usr/bin/env bash
# Builds the smslice images without a Docker engine or a registry: a base image from Debian's packages
# (mmdebstrap) plus a jlinked Java 25 runtime, then the Dockerfiles beside this script with podman
# (BASE_IMAGE pointing at that base), saved as OCI archives that a node's containerd can import
# (`ctr -n k8s.io images import`). Tags are the ones a release publishes: <registry>/<name>:<version>.
#
#   images/build-offline.sh <output-folder>     after `./mvnw package -DskipTests` (or verify)
#
# Environment: JAVA_HOME (a JDK 25 with jlink), SMSLICE_REGISTRY (default ghcr.io/smslice),
# SMSLICE_VERSION (default: the chart's appVersion), SMSLICE_IMAGE_CACHE (the base's cache folder),
# SMSLICE_SANDBOX_IMAGE (a name: also write sandbox.tar, a pod sandbox image for a node that cannot
# pull registry.k8s.io/pause, as the real-cluster tests' node cannot).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
registry=${SMSLICE_REGISTRY:-ghcr.io/smslice}
version=${SMSLICE_VERSION:-$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$repo/charts/smslice/Chart.yaml")}
cache=${SMSLICE_IMAGE_CACHE:-$HOME/.cache/smslice-images}
suite=bookworm
jre_modules=java.se,jdk.unsupported,jdk.management,jdk.naming.dns,jdk.zipfs,jdk.net,jdk.jfr,jdk.httpserver
log() { echo "[images/build-offline.sh] $*" >&2; }

# Podman's defaults raise nofile/nproc, which this sandbox refuses; runc, not crun (hybrid cgroups).
export CONTAINERS_CONF=$cache/containers.conf
mkdir -p "$cache"
printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]\n[engine]\nruntime = "runc"\n' > "$CONTAINERS_CONF"

java_version=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')
base_key=$(echo "$suite $java_version $jre_modules" | sha256sum | cut -c1-12)
base=localhost/smslice/base:$suite-jre-$base_key
if ! podman image exists "$base"; then
  rootfs=$cache/base-$base_key.tar
  if [ ! -f "$rootfs" ]; then
    log "making the base root file system ($suite, Java $java_version)"
    tmp=$(mktemp -d)
    mmdebstrap --variant=essential --include=ca-certificates,zlib1g,mount "$suite" "$tmp/rootfs" \
      "$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources | head -1)" >&2
    "$JAVA_HOME/bin/jlink" --add-modules "$jre_modules" --strip-debug --no-man-pages --no-header-files \
      --output "$tmp/rootfs/opt/java/openjdk"
    tar -C "$tmp/rootfs" -cf "$rootfs.tmp" .
    mv "$rootfs.tmp" "$rootfs"
    rm -rf "$tmp"
  fi
  podman import \
    --change 'ENV PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV JAVA_HOME=/opt/java/openjdk' "$rootfs" "$base" >&2
fi

image() { # name, Dockerfile, context, extra build flags...
  local name=$1 dockerfile=$2 context=$3; shift 3
  log "building $registry/$name:$version"
  podman build -q --build-arg BASE_IMAGE="$base" -f "$repo/$dockerfile" -t "$registry/$name:$version" "$@" "$repo/$context" >&2
  rm -f "$out/$name.tar"
  podman save -q --format oci-archive -o "$out/$name.tar" "$registry/$name:$version"
}
image smslice-operator images/operator/Dockerfile operator
image smslice-node images/node/Dockerfile device-plugin/node \
  --build-context interposer="$repo/device-plugin/interposer/target/classes/native/linux-x86-64"
image examples images/examples/Dockerfile examples
if [ -n "${SMSLICE_SANDBOX_IMAGE:-}" ]; then
  printf 'FROM %s\nENTRYPOINT ["/bin/sleep", "infinity"]\n' "$base" | podman build -q -t "$SMSLICE_SANDBOX_IMAGE" -f - "$out" >&2
  rm -f "$out/sandbox.tar"
  podman save -q --format oci-archive -o "$out/sandbox.tar" "$SMSLICE_SANDBOX_IMAGE"
fi
ls -1 "$out"/*.tar
