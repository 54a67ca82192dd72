package io.smslice.agent.verify;

import io.smslice.gpu.MpsServers;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The verification's MPS daemon (one GPU), driven with nvidia-cuda-mps-control; the node side has
 * the production implementation.
 */
final class CommandMps implements MpsServers {
  private final Path pipe;
  private final Path log;

  CommandMps(Path pipe, Path log) {
    this.pipe = pipe;
    this.log = log;
  }

  @Override
  public Path pipeDirectory(String gpuUuid) {
    return pipe;
  }

  @Override
  public void restart(String gpuUuid) throws IOException {
    // "quit" fails when no daemon runs (in-agent mode starts one only after a fault).
    run("echo quit | nvidia-cuda-mps-control || true");
    run("nvidia-cuda-mps-control -d");
  }

  private void run(String command) throws IOException {
    ProcessBuilder builder = new ProcessBuilder("sh", "-c", command).inheritIO();
    builder.environment().put("CUDA_MPS_PIPE_DIRECTORY", pipe.toString());
    builder.environment().put("CUDA_MPS_LOG_DIRECTORY", log.toString());
    try {
      int code = builder.start().waitFor();
      if (code != 0) {
        throw new IOException(command + " exited with " + code);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }
}
