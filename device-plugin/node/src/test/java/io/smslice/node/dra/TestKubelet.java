package io.smslice.node.dra;

import io.grpc.ManagedChannel;
import io.smslice.node.kubelet.dra.v1.Claim;
import io.smslice.node.kubelet.dra.v1.DRAPluginGrpc;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourceResponse;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.smslice.node.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.smslice.node.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.smslice.node.kubelet.drahealth.v1alpha1.DRAResourceHealthGrpc;
import io.smslice.node.kubelet.drahealth.v1alpha1.NodeWatchResourcesRequest;
import io.smslice.node.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import io.smslice.node.kubelet.pluginregistration.v1.InfoRequest;
import io.smslice.node.kubelet.pluginregistration.v1.PluginInfo;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationGrpc;
import io.smslice.node.kubelet.pluginregistration.v1.RegistrationStatus;
import io.smslice.node.plugin.UnixSockets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The kubelet's side of a DRA driver, over the real sockets: what its plugin watcher does with a
 * registration socket (GetInfo, then NotifyRegistrationStatus), and the DRA calls on the endpoint
 * that GetInfo named.
 */
public final class TestKubelet implements AutoCloseable {
  private final ManagedChannel registration;
  private final PluginInfo info;
  private final ManagedChannel dra;

  /** Registers the plugin whose registration socket this is, as the kubelet does. */
  public TestKubelet(Path registrationSocket) {
    registration = UnixSockets.channel(registrationSocket);
    var stub =
        RegistrationGrpc.newBlockingStub(registration).withDeadlineAfter(5, TimeUnit.SECONDS);
    info = stub.getInfo(InfoRequest.getDefaultInstance());
    RegistrationGrpc.newBlockingStub(registration)
        .withDeadlineAfter(5, TimeUnit.SECONDS)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    dra = UnixSockets.channel(Path.of(info.getEndpoint()));
  }

  public PluginInfo info() {
    return info;
  }

  public static Claim claim(String namespace, String name, String uid) {
    return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
  }

  public NodePrepareResourcesResponse prepare(Claim... claims) {
    return DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS)
        .nodePrepareResources(
            NodePrepareResourcesRequest.newBuilder()
                .addAllClaims(java.util.List.of(claims))
                .build());
  }

  /** One claim's answer. */
  public NodePrepareResourceResponse prepareOne(String namespace, String name, String uid) {
    return prepare(claim(namespace, name, uid)).getClaimsOrThrow(uid);
  }

  public NodeUnprepareResourcesResponse unprepare(Claim... claims) {
    return DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS)
        .nodeUnprepareResources(
            NodeUnprepareResourcesRequest.newBuilder()
                .addAllClaims(java.util.List.of(claims))
                .build());
  }

  /** Opens the health stream the kubelet keeps on the endpoint; answers arrive in the queue. */
  public java.util.concurrent.BlockingQueue<NodeWatchResourcesResponse> watchHealth() {
    java.util.concurrent.BlockingQueue<NodeWatchResourcesResponse> out =
        new java.util.concurrent.LinkedBlockingQueue<>();
    DRAResourceHealthGrpc.newStub(dra)
        .nodeWatchResources(
            NodeWatchResourcesRequest.getDefaultInstance(),
            new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(NodeWatchResourcesResponse value) {
                out.add(value);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    return out;
  }

  @Override
  public void close() {
    registration.shutdownNow();
    dra.shutdownNow();
  }
}
