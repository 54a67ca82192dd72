#!/usr/bin/env bash
# Run here (the build machine): packs what run-on-gpu.sh needs into the git-ignored .gpu-run/:
# the agent's jars and their GPU-side dependencies, and a jlinked Java 25 runtime.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
./mvnw -q -pl device-plugin/gpu,device-plugin/client,device-plugin/agent install -DskipTests
rm -rf .gpu-run/agent && mkdir -p .gpu-run/agent
./mvnw -q -pl device-plugin/agent dependency:copy-dependencies -DincludeScope=runtime \
  -DincludeArtifactIds=jcuda,jcuda-natives,smslice-gpu,smslice-client \
  -DoutputDirectory="$root/.gpu-run/agent"
cp device-plugin/agent/target/smslice-agent-*.jar .gpu-run/agent/
if [ ! -f .gpu-run/jre25.tgz ]; then
  tmp=$(mktemp -d)
  "$JAVA_HOME/bin/jlink" --add-modules \
    java.base,java.logging,java.management,jdk.unsupported,java.naming,java.net.http,java.xml,jdk.crypto.ec \
    --strip-debug --no-man-pages --no-header-files --compress=zip-9 --output "$tmp/jre25"
  tar -czf .gpu-run/jre25.tgz -C "$tmp" jre25
fi
du -sh .gpu-run/*
