#!/bin/bash
# Stands in for nvidia-cuda-mps-control in tests: "-f" runs a daemon in the foreground that
# records its pid and GPU and makes its control pipe; "-v" prints the version written in fake-mps-version beside this script
# (13000, as on the H200 machine, when there is none); without arguments it reads control
# commands, and "quit" ends the daemon.
if [ "$1" = "-v" ]; then
  version_file="$(dirname "$0")/fake-mps-version"
  if [ -f "$version_file" ]; then cat "$version_file"; else echo 13000; fi
  exit 0
fi
pidfile="$CUDA_MPS_PIPE_DIRECTORY/fake-daemon.pid"
if [ "$1" = "-f" ]; then
  # The pid file last: tests wait for it, then read the rest.
  echo "$CUDA_VISIBLE_DEVICES" > "$CUDA_MPS_PIPE_DIRECTORY/fake-daemon.gpu"
  # A daemon that takes a while to make its control pipe: fake-mps-start-delay (seconds).
  delay_file="$(dirname "$0")/fake-mps-start-delay"
  if [ -f "$delay_file" ]; then sleep "$(cat "$delay_file")"; fi
  : > "$CUDA_MPS_PIPE_DIRECTORY/control"
  echo $$ > "$pidfile.tmp" && mv "$pidfile.tmp" "$pidfile"
  exec sleep 600
fi
read -r command
if [ "$command" = "quit" ]; then
  rm -f "$CUDA_MPS_PIPE_DIRECTORY/control"
  kill "$(cat "$pidfile")"
fi
