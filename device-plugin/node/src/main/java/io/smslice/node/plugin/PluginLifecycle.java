package io.smslice.node.plugin;

import io.netty.channel.epoll.EpollEventLoopGroup;
import io.smslice.node.config.ConfigException;
import io.smslice.node.metrics.NodeMetrics;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Runs one plugin server per resource and keeps each registered with the kubelet.
 *
 * <p>When the kubelet restarts it empties the device-plugin directory and creates kubelet.sock
 * anew; a watch on the directory sees the new kubelet.sock and every server is restarted on a fresh
 * socket and registered again at once. A periodic check registers plugins the kubelet could not
 * register (not up yet, or not dialling back), and restarts a server whose socket file disappeared.
 * Failures are logged and retried, except a refusal no retry can change (the kubelet rejects the
 * resource name or the API version): at start it fails the start like a bad configuration, later it
 * is handed to the {@link #onPermanentRefusal} handler, and that resource is not tried again until
 * the kubelet restarts.
 */
public final class PluginLifecycle implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(PluginLifecycle.class.getName());
  private static final String REFUSAL_FIX =
      "Retrying cannot help: check resourceNames in the smslice node config (docs/node-config.md)"
          + " and that the kubelet serves the device-plugin API v1beta1";

  private final Path directory;
  private final Duration retryInterval;
  private final NodeMetrics metrics;
  private final KubeletRegistrar registrar;
  private final List<PluginServer> servers = new ArrayList<>();
  private final Set<PluginServer> registered = new HashSet<>();
  // Refused for good by the current kubelet, and every such refusal's message.
  private final Set<PluginServer> refused = new HashSet<>();
  private final List<String> refusals = new ArrayList<>();
  private final EpollEventLoopGroup boss = new EpollEventLoopGroup(1);
  private final EpollEventLoopGroup workers = new EpollEventLoopGroup(2);
  private final ScheduledExecutorService retries =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("plugin-retry").unstarted(r));
  private Consumer<String> refusalHandler;
  private WatchService watch;
  private Thread watcher;

  public PluginLifecycle(
      Path directory, List<ResourceManager> managers, Duration retryInterval, NodeMetrics metrics) {
    this.directory = directory;
    this.retryInterval = retryInterval;
    this.metrics = metrics;
    this.registrar = new KubeletRegistrar(directory);
    managers.forEach(m -> servers.add(new PluginServer(m, directory, boss, workers, metrics)));
  }

  public synchronized void start() throws IOException {
    Files.createDirectories(directory);
    watch = directory.getFileSystem().newWatchService();
    directory.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
    for (PluginServer s : servers) {
      s.start();
      LOG.info("serving " + s.manager().resourceName() + " on " + s.socket());
    }
    registerPending();
    if (!refusals.isEmpty()) {
      String reasons = String.join("; ", refusals);
      close();
      throw new ConfigException(reasons + ". " + REFUSAL_FIX);
    }
    watcher = Thread.ofPlatform().daemon().name("kubelet-socket-watch").start(this::watchLoop);
    long every = retryInterval.toMillis();
    retries.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * Where a permanent refusal after start goes (NodeMain exits with status 2); a refusal that came
   * before the handler is handed over at once. The handler runs on its own thread.
   */
  public synchronized void onPermanentRefusal(Consumer<String> handler) {
    this.refusalHandler = handler;
    refusals.forEach(this::report);
  }

  private void report(String reason) {
    Consumer<String> handler = refusalHandler;
    if (handler != null) {
      String message = reason + ". " + REFUSAL_FIX;
      Thread.ofPlatform().daemon().name("plugin-refused").start(() -> handler.accept(message));
    }
  }

  /** Whether every resource is registered with the current kubelet. */
  public synchronized boolean allRegistered() {
    return registered.size() == servers.size();
  }

  private void watchLoop() {
    try {
      while (true) {
        WatchKey key = watch.take();
        boolean kubeletRestarted = false;
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.context() instanceof Path p
              && p.toString().equals(KubeletRegistrar.KUBELET_SOCKET)) {
            kubeletRestarted = true;
          } else if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
            kubeletRestarted = true;
          }
        }
        key.reset();
        if (kubeletRestarted) {
          LOG.info("kubelet.sock was created: restarting plugin servers and registering again");
          restartAll();
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closing
    }
  }

  private synchronized void restartAll() {
    registered.clear();
    refused.clear(); // a new kubelet gets one more try
    for (PluginServer s : servers) {
      restart(s);
    }
    registerPending();
  }

  private void restart(PluginServer s) {
    s.stop();
    try {
      s.start();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "restarting " + s.manager().resourceName() + " failed; will retry", e);
    }
  }

  private synchronized void check() {
    try {
      for (PluginServer s : servers) {
        if (!Files.exists(s.socket())) {
          LOG.warning(s.socket() + " disappeared: serving and registering it again");
          registered.remove(s);
          restart(s);
        }
      }
      registerPending();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "plugin check failed; will retry", e);
    }
  }

  private void registerPending() {
    if (!Files.exists(registrar.kubeletSocket())) {
      return; // the kubelet is not up; its kubelet.sock appearing triggers registration
    }
    for (PluginServer s : servers) {
      if (registered.contains(s) || refused.contains(s) || !Files.exists(s.socket())) {
        continue;
      }
      try {
        registrar.register(s.manager().resourceName(), s.socket());
        registered.add(s);
        metrics.registration(s.manager().resourceName());
        LOG.info("registered " + s.manager().resourceName() + " with the kubelet");
      } catch (KubeletRegistrar.Refused e) {
        LOG.severe(e.getMessage() + "; not retrying");
        refused.add(s);
        refusals.add(e.getMessage());
        report(e.getMessage());
      } catch (RuntimeException e) {
        LOG.warning(e.getMessage() + "; retrying in " + retryInterval.toSeconds() + " s");
      }
    }
  }

  @Override
  public synchronized void close() {
    retries.shutdownNow();
    if (watcher != null) {
      watcher.interrupt();
    }
    try {
      if (watch != null) {
        watch.close();
      }
    } catch (IOException e) {
      LOG.log(Level.FINE, "closing the directory watch", e);
    }
    servers.forEach(PluginServer::stop);
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}
