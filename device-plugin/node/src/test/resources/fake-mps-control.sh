#!/bin/bash
# Stands in for nvidia-cuda-mps-control in tests: "-f" runs a daemon in the foreground that
# records its pid and GPU; without arguments it reads control commands, and "quit" ends the daemon.
pidfile="$CUDA_MPS_PIPE_DIRECTORY/fake-daemon.pid"
if [ "$1" = "-f" ]; then
  echo $$ > "$pidfile"
  echo "$CUDA_VISIBLE_DEVICES" > "$CUDA_MPS_PIPE_DIRECTORY/fake-daemon.gpu"
  exec sleep 600
fi
read -r command
if [ "$command" = "quit" ]; then
  kill "$(cat "$pidfile")"
fi
