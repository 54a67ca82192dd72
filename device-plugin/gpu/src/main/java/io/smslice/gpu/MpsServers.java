package io.smslice.gpu;

import java.io.IOException;
import java.nio.file.Path;

/** The MPS control daemons the node side runs, one per GPU that needs one. */
public interface MpsServers {
  /** CUDA_MPS_PIPE_DIRECTORY of the GPU's daemon. */
  Path pipeDirectory(String gpuUuid);

  /** Stops and starts the GPU's daemon, for example after a fault left it refusing clients. */
  void restart(String gpuUuid) throws IOException;
}
