package io.smslice.node.dra.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.dra.prepare.ClaimPreparer;
import io.smslice.node.kubelet.pluginregistration.v1.InfoRequest;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationStatus;
import io.smslice.node.metrics.NodeMetrics;
import io.smslice.node.plugin.UnixSockets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The DRA kubelet plugin: the DRA service on {@code <plugins>/smslice.io/dra.sock} and the
 * registration service on {@code <plugins_registry>/smslice.io-reg.sock}, which the kubelet's
 * plugin watcher finds and calls. The DRA socket is served before the registration socket appears,
 * so the kubelet never registers an endpoint that does not answer. A periodic check serves a socket
 * again when its file was removed (a kubelet or host clean-up); the kubelet itself finds the
 * existing registration socket again when it restarts. On close the registration socket goes first:
 * the kubelet then unregisters the driver (and wipes its ResourceSlices 30 s later unless a new
 * instance registers).
 */
public final class DraKubeletPlugin implements AutoCloseable {
  private static final Logger LOG = Logger.getLogger(DraKubeletPlugin.class.getName());
  static final String DRA_SOCKET = "dra.sock";
  static final String REGISTRATION_SOCKET = DraDriver.NAME + "-reg.sock";

  private final Path draSocket;
  private final Path registrationSocket;
  private final DraPluginService dra;
  private final RegistrationService registration;
  private final DraHealthService health;
  private final Duration checkEvery;
  private final EpollEventLoopGroup boss = new EpollEventLoopGroup(1);
  private final EpollEventLoopGroup workers = new EpollEventLoopGroup(2);
  private final ScheduledExecutorService checks =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon().name("dra-socket-check").unstarted(r));
  private Server draServer;
  private Server registrationServer;

  /**
   * @param pluginsDirectory the kubelet's plugins directory (/var/lib/kubelet/plugins)
   * @param registryDirectory the kubelet's plugins_registry directory
   * @param devices the devices' health, for the kubelet's health stream
   */
  public DraKubeletPlugin(
      Path pluginsDirectory,
      Path registryDirectory,
      ClaimPreparer preparer,
      Supplier<List<DeviceCondition>> devices,
      NodeMetrics metrics,
      Duration checkEvery) {
    this.draSocket = pluginsDirectory.resolve(DraDriver.NAME).resolve(DRA_SOCKET);
    this.registrationSocket = registryDirectory.resolve(REGISTRATION_SOCKET);
    this.dra = new DraPluginService(preparer);
    this.registration = new RegistrationService(draSocket, metrics);
    this.health = new DraHealthService(devices);
    this.checkEvery = checkEvery;
  }

  public Path draSocket() {
    return draSocket;
  }

  public Path registrationSocket() {
    return registrationSocket;
  }

  /** The kubelet's last NotifyRegistrationStatus, or null. */
  public RegistrationStatus registrationStatus() {
    return registration.lastStatus();
  }

  public synchronized void start() throws IOException {
    draServer = serve(draSocket, dra, health);
    registrationServer = serve(registrationSocket, registration);
    answers(registrationSocket);
    LOG.info(
        "DRA driver " + DraDriver.NAME + ": " + draSocket + ", registration " + registrationSocket);
    long every = checkEvery.toMillis();
    checks.scheduleWithFixedDelay(this::check, every, every, TimeUnit.MILLISECONDS);
    long resend = DraHealthService.RESEND.toMillis();
    checks.scheduleWithFixedDelay(health::broadcast, resend, resend, TimeUnit.MILLISECONDS);
  }

  /** Tells the kubelet's health streams at once (a GPU's health changed). */
  public void healthChanged() {
    try {
      checks.execute(health::broadcast);
    } catch (RejectedExecutionException e) {
      // closed: the kubelet's streams ended with it
    }
  }

  private Server serve(Path socket, BindableService... services) throws IOException {
    Files.createDirectories(socket.getParent());
    Files.deleteIfExists(socket);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(boss)
            .workerEventLoopGroup(workers);
    for (BindableService s : services) {
      builder.addService(s);
    }
    return builder.build().start();
  }

  /** Dials the registration socket itself, as the kubelet will. */
  private static void answers(Path socket) throws IOException {
    ManagedChannel self = UnixSockets.channel(socket);
    try {
      RegistrationGrpc.newBlockingStub(self)
          .withDeadlineAfter(5, TimeUnit.SECONDS)
          .withWaitForReady()
          .getInfo(InfoRequest.getDefaultInstance());
    } catch (RuntimeException e) {
      throw new IOException(
          "registration socket " + socket + " does not answer: " + e.getMessage(), e);
    } finally {
      self.shutdownNow();
    }
  }

  private synchronized void check() {
    try {
      if (!Files.exists(draSocket)) {
        LOG.warning(draSocket + " disappeared: serving it again");
        UnixSockets.stop(draServer);
        draServer = serve(draSocket, dra, health);
      }
      if (!Files.exists(registrationSocket)) {
        LOG.warning(
            registrationSocket + " disappeared: serving it again for the kubelet to register");
        UnixSockets.stop(registrationServer);
        registrationServer = serve(registrationSocket, registration);
      }
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "serving the DRA sockets again failed; will retry", e);
    }
  }

  @Override
  public synchronized void close() {
    checks.shutdownNow();
    health.close();
    UnixSockets.stop(registrationServer);
    deleteQuietly(registrationSocket);
    UnixSockets.stop(draServer);
    deleteQuietly(draSocket);
    registrationServer = null;
    draServer = null;
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  private static void deleteQuietly(Path socket) {
    try {
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      LOG.log(Level.FINE, "removing " + socket, e);
    }
  }
}
