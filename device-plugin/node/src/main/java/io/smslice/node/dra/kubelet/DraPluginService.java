package io.smslice.node.dra.kubelet;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.dra.claims.PrepareException;
import io.smslice.node.dra.prepare.ClaimPreparer;
import io.smslice.node.dra.prepare.PreparedClaim;
import io.smslice.node.kubelet.dra.v1.Claim;
import io.smslice.node.kubelet.dra.v1.DRAPluginGrpc;
import io.smslice.node.kubelet.dra.v1.Device;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourceResponse;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesRequest;
import io.smslice.node.kubelet.dra.v1.NodePrepareResourcesResponse;
import io.smslice.node.kubelet.dra.v1.NodeUnprepareResourceResponse;
import io.smslice.node.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import io.smslice.node.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The DRA v1 service on the plugin's endpoint. The claims of one call are worked on at once, each
 * answered on its own (one bad claim fails only itself); a malformed call (a claim without
 * namespace, name or uid, or a uid twice) is refused whole with INVALID_ARGUMENT.
 */
final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {
  private static final Logger LOG = Logger.getLogger(DraPluginService.class.getName());

  private final ClaimPreparer preparer;

  DraPluginService(ClaimPreparer preparer) {
    this.preparer = preparer;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    String invalid = invalid(request.getClaimsList());
    if (invalid != null) {
      response.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
      return;
    }
    List<NodePrepareResourceResponse> answers =
        each(request.getClaimsList(), DraPluginService::prepareOne, this);
    NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
    for (int i = 0; i < answers.size(); i++) {
      out.putClaims(request.getClaims(i).getUid(), answers.get(i));
    }
    response.onNext(out.build());
    response.onCompleted();
  }

  private NodePrepareResourceResponse prepareOne(Claim c) {
    try {
      PreparedClaim p = preparer.prepare(c.getNamespace(), c.getName(), c.getUid());
      Device.Builder device =
          Device.newBuilder()
              .addRequestNames(requestName(p.request()))
              .setPoolName(p.pool())
              .setDeviceName(p.device())
              .addCdiDeviceIds(DraDriver.cdiDeviceId(p.uid()));
      if (p.shareId() != null) {
        device.setShareId(p.shareId());
      }
      return NodePrepareResourceResponse.newBuilder().addDevices(device).build();
    } catch (PrepareException e) {
      return NodePrepareResourceResponse.newBuilder().setError(e.getMessage()).build();
    } catch (RuntimeException e) {
      LOG.log(Level.SEVERE, "preparing claim " + c.getNamespace() + "/" + c.getName(), e);
      return NodePrepareResourceResponse.newBuilder()
          .setError(
              "smslice: claim "
                  + c.getNamespace()
                  + "/"
                  + c.getName()
                  + " failed on the node: "
                  + e
                  + "; see the smslice node pod's log")
          .build();
    }
  }

  /** The kubelet matches devices to containers by the request's name, without the subrequest. */
  private static String requestName(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    String invalid = invalid(request.getClaimsList());
    if (invalid != null) {
      response.onError(Status.INVALID_ARGUMENT.withDescription(invalid).asRuntimeException());
      return;
    }
    List<NodeUnprepareResourceResponse> answers =
        each(request.getClaimsList(), DraPluginService::unprepareOne, this);
    NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
    for (int i = 0; i < answers.size(); i++) {
      out.putClaims(request.getClaims(i).getUid(), answers.get(i));
    }
    response.onNext(out.build());
    response.onCompleted();
  }

  private NodeUnprepareResourceResponse unprepareOne(Claim c) {
    try {
      preparer.unprepare(c.getNamespace(), c.getName(), c.getUid());
      return NodeUnprepareResourceResponse.getDefaultInstance();
    } catch (PrepareException e) {
      return NodeUnprepareResourceResponse.newBuilder().setError(e.getMessage()).build();
    } catch (RuntimeException e) {
      LOG.log(Level.SEVERE, "unpreparing claim " + c.getNamespace() + "/" + c.getName(), e);
      return NodeUnprepareResourceResponse.newBuilder()
          .setError("smslice: claim " + c.getNamespace() + "/" + c.getName() + " failed: " + e)
          .build();
    }
  }

  private interface Work<T> {
    T apply(DraPluginService service, Claim claim);
  }

  /** Runs the work for every claim at once, on virtual threads; answers in the claims' order. */
  private static <T> List<T> each(List<Claim> claims, Work<T> work, DraPluginService service) {
    if (claims.size() == 1) {
      return List.of(work.apply(service, claims.getFirst()));
    }
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<T>> futures = new ArrayList<>();
      for (Claim c : claims) {
        futures.add(pool.submit(() -> work.apply(service, c)));
      }
      List<T> out = new ArrayList<>();
      for (Future<T> f : futures) {
        try {
          out.add(f.get());
        } catch (ExecutionException e) {
          throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
      return out;
    }
  }

  /** Why the call is malformed, or null. */
  private static String invalid(List<Claim> claims) {
    Set<String> uids = new HashSet<>();
    for (Claim c : claims) {
      if (c.getUid().isEmpty() || c.getNamespace().isEmpty() || c.getName().isEmpty()) {
        return "smslice: every claim needs namespace, name and uid; got {namespace: \""
            + c.getNamespace()
            + "\", name: \""
            + c.getName()
            + "\", uid: \""
            + c.getUid()
            + "\"}";
      }
      if (!uids.add(c.getUid())) {
        return "smslice: claim uid " + c.getUid() + " is named twice in one call";
      }
    }
    return null;
  }
}
