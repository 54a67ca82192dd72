package io.smslice.agent.server;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The tasks waiting for a claim's executor. Each task can be abandoned: once the claim is released,
 * queued tasks are answered with the reason instead of run, whichever thread finds them first, so
 * that nothing waits for an executor that has stopped or is stuck.
 */
final class ExecutorQueue {
  private static final System.Logger LOG = System.getLogger(ExecutorQueue.class.getName());

  private record Task(Runnable work, Consumer<String> abandon) {}

  private final String claim;
  private final Runnable wake;
  private final ConcurrentLinkedQueue<Task> tasks = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile String stopReason;
  private volatile Task current;

  /**
   * @param wake wakes the executor from its idle sleep
   */
  ExecutorQueue(String claim, Runnable wake) {
    this.claim = claim;
    this.wake = wake;
  }

  /** Queues work; after {@link #stop} it is abandoned at once (told the reason, never run). */
  void add(Runnable work, Consumer<String> abandon) {
    tasks.add(new Task(work, abandon));
    if (stopped.get()) {
      abandonQueued();
    } else {
      wake.run();
    }
  }

  /** Queues work that has nothing to be told when the claim is released (it is then dropped). */
  void addIfServing(Runnable work) {
    if (!stopped.get()) {
      add(work, reason -> {});
    }
  }

  boolean isEmpty() {
    return tasks.isEmpty();
  }

  boolean stopping() {
    return stopped.get();
  }

  /** Runs queued tasks on the executor; true when any ran. */
  boolean runQueued() {
    boolean ran = false;
    Task task;
    while (!stopped.get() && (task = tasks.poll()) != null) {
      current = task;
      try {
        task.work().run();
      } finally {
        current = null;
      }
      ran = true;
    }
    return ran;
  }

  /** Refuses new work from now on; false when it was stopped already. */
  boolean stop(String reason) {
    stopReason = reason;
    if (!stopped.compareAndSet(false, true)) {
      return false;
    }
    abandonQueued();
    wake.run();
    return true;
  }

  void abandonQueued() {
    Task task;
    while ((task = tasks.poll()) != null) {
      abandon(task);
    }
  }

  /** Answers the task the executor is running, when it is stuck in it and the claim is released. */
  void abandonCurrent() {
    Task task = current;
    if (task != null) {
      abandon(task);
    }
  }

  private void abandon(Task task) {
    try {
      task.abandon().accept(stopReason);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "claim {0}: abandoning a request: {1}", claim, e);
    }
  }
}
