package io.smslice.operator.pods;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Binds a pod to a node through the pods/binding subresource, as a scheduler does. */
public class PodBinder {
  private final KubernetesClient client;

  public PodBinder(KubernetesClient client) {
    this.client = client;
  }

  public void bind(Pod pod, String node) {
    var meta = pod.getMetadata();
    var binding =
        new BindingBuilder()
            .withNewMetadata()
            .withName(meta.getName())
            .withNamespace(meta.getNamespace())
            .withUid(meta.getUid())
            .endMetadata()
            .withNewTarget()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(node)
            .endTarget()
            .build();
    String base = client.getMasterUrl().toString();
    String url =
        (base.endsWith("/") ? base : base + "/")
            + "api/v1/namespaces/"
            + enc(meta.getNamespace())
            + "/pods/"
            + enc(meta.getName())
            + "/binding";
    var http = client.getHttpClient();
    var request =
        http.newHttpRequestBuilder()
            .uri(url)
            .post("application/json", Serialization.asJson(binding))
            .build();
    try {
      var response = http.sendAsync(request, String.class).get(30, TimeUnit.SECONDS);
      if (!response.isSuccessful()) {
        throw new KubernetesClientException(
            "binding pod "
                + meta.getNamespace()
                + "/"
                + meta.getName()
                + " to "
                + node
                + " failed: HTTP "
                + response.code()
                + " "
                + response.body(),
            response.code(),
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubernetesClientException("interrupted while binding a pod", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new KubernetesClientException("binding pod " + meta.getName() + " failed", e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
