#!/usr/bin/env bash
# Run here (the build machine): packs what run-on-gpu.sh needs into a git-ignored bundle folder
# (default .gpu-run/interposer): the interposer library, the node's and the agent's jars (the node
# check FaultRecoveryCheck and the client-library tenant ClientTenant run from them), a jlinked
# Java 25 runtime, the agent verification's kernels and this folder's programs.
# Then on the GPU machine: bash <bundle>/verify/run-on-gpu.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
bundle=${1:-$root/.gpu-run/interposer}
cd "$root"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
./mvnw -o -q -B -ntp -pl device-plugin/interposer,device-plugin/node -am package -DskipTests \
  dependency:copy-dependencies -DincludeScope=runtime -DincludeArtifactIds=jcuda,jcuda-natives
rm -rf "$bundle/agent" "$bundle/lib" "$bundle/verify"
mkdir -p "$bundle/agent" "$bundle/lib"
cp device-plugin/agent/target/dependency/*.jar device-plugin/agent/target/smslice-agent-*.jar \
  device-plugin/gpu/target/smslice-gpu-*.jar device-plugin/client/target/smslice-client-*.jar \
  device-plugin/node/target/smslice-node-*.jar crds/target/smslice-crds-*.jar "$bundle/agent/"
cp device-plugin/interposer/target/classes/native/linux-x86-64/libsmslice-interposer.so "$bundle/lib/"
cp -r device-plugin/interposer/verify "$bundle/verify"
rm -rf "$bundle/verify/results"
cp device-plugin/agent/verify/kernels.ptx "$bundle/verify/"
echo "$(git rev-parse HEAD)$(git diff --quiet HEAD -- . || echo ' (with uncommitted changes)')" > "$bundle/COMMIT"
if [ ! -f "$bundle/jre25.tgz" ]; then
  tmp=$(mktemp -d)
  "$JAVA_HOME/bin/jlink" --add-modules \
    java.base,java.logging,java.management,jdk.unsupported,java.naming,java.net.http,java.xml,jdk.crypto.ec \
    --strip-debug --no-man-pages --no-header-files --compress=zip-9 --output "$tmp/jre25"
  tar -czf "$bundle/jre25.tgz" -C "$tmp" jre25
  rm -rf "$tmp"
fi
du -sh "$bundle"/*
