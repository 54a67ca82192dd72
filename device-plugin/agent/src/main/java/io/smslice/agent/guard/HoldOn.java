package io.smslice.agent.guard;

/**
 * How best-effort tenants of the interposer hold their work while latency-critical work is in
 * flight (docs/interference-guard.md). The agent's own executors hold their thread either way.
 */
public enum HoldOn {
  /** Each new launch or copy waits on the launching thread; few launches are kept in flight. */
  THREAD,
  /**
   * The streams wait on the GPU for a word the process's gate thread closes, ahead of each bound's
   * worth of launches; the program runs ahead as far as it likes. Where the driver refuses stream
   * waits, the thread holds instead.
   */
  STREAM
}
