#!/usr/bin/env bash
# Run here (the build machine): packs what `./demo --gpu` needs into a git-ignored bundle folder
# (default .gpu-run/demo-gpu) small enough to travel to the GPU machine (under 64 MiB with the
# Java runtime): demo-gpu.tar.xz, holding the demo script, the CRDs, examples/ (manifests, the
# PyTorch ensemble's scripts, the built examples jar and its libraries), the operator's fast-jar,
# the interposer library and a jlinked Java 25 runtime, laid out as the repository is; and
# run-on-gpu.sh, which unpacks it there and runs ./demo --gpu.
# How it gets small: jars rewritten with stored entries (stored_jars.py), so that one solid xz
# compresses their classes; the jars the operator and the examples share written once (hard
# links); only JCuda's driver library of jcuda-natives; a runtime of the modules the demo and the
# operator use, its module image uncompressed for the same reason.
# Usage: prepare-gpu-run.sh [BUNDLE_DIR]   (set SKIP_BUILD=1 to pack what is built already)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bundle=${1:-$root/.gpu-run/demo-gpu}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
cd "$root"
if [ -z "${SKIP_BUILD:-}" ]; then
  ./mvnw -o -q -B -ntp -DskipTests -Dquarkus.analytics.disabled=true package \
    -pl operator,examples,device-plugin/interposer -am
fi
interposer=device-plugin/interposer/target/classes/native/linux-x86-64/libsmslice-interposer.so
examples_jar=$(ls examples/target/smslice-examples-*.jar)
for f in "$interposer" "$examples_jar" operator/target/quarkus-app/quarkus-run.jar; do
  [ -f "$f" ] || { echo "missing $f: build first (without SKIP_BUILD)" >&2; exit 1; }
done

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# The repository's files the demo reads, as the repository lays them out.
cp demo "$stage/"
mkdir -p "$stage/crds" && cp crds/*.yml "$stage/crds/"
find examples -path examples/target -prune -o -path examples/src -prune -o \
  \( -name '*.yaml' -o -path 'examples/ensemble/pytorch/*.yml' \
     -o \( -path 'examples/ensemble/python/*.py' -a ! -name 'test_*' \) \) -print |
  while read -r f; do mkdir -p "$stage/$(dirname "$f")" && cp "$f" "$stage/$f"; done
mkdir -p "$stage/$(dirname "$interposer")" && cp "$interposer" "$stage/$interposer"
# Every jar the demo and the operator load, stored and deduplicated.
pairs=("$examples_jar=$stage/$examples_jar")
for j in examples/target/lib/*.jar; do pairs+=("$j=$stage/$j"); done
while read -r j; do pairs+=("$j=$stage/$j"); done \
  < <(find operator/target/quarkus-app -name '*.jar' | sort)
python3 "$here/stored_jars.py" "${pairs[@]}"
(cd operator/target/quarkus-app && find . -type f ! -name '*.jar' -print) |
  while read -r f; do
    mkdir -p "$stage/operator/target/quarkus-app/$(dirname "$f")"
    cp "operator/target/quarkus-app/$f" "$stage/operator/target/quarkus-app/$f"
  done
# The Java runtime: the modules jdeps finds in the examples' jars, and those the operator needs
# (java.management, jdk.management, java.instrument, jdk.zipfs, jdk.naming.dns: Quarkus).
"$JAVA_HOME/bin/jlink" --add-modules \
  java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.crypto.ec,jdk.httpserver,jdk.management,jdk.naming.dns,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-man-pages --no-header-files --compress=zip-0 --output "$stage/jre"

mkdir -p "$bundle"
rm -f "$bundle/demo-gpu.tar.xz"
tar -C "$stage" -cf - . | xz -9 -T2 > "$bundle/demo-gpu.tar.xz"
cp "$here/run-on-gpu.sh" "$bundle/"
echo "unpacked: $(du -sh "$stage" | cut -f1); bundle:"
du -ab "$bundle" | sort -n | awk '{printf "%10.1f MiB  %s\n", $1 / 1048576, $2}'
