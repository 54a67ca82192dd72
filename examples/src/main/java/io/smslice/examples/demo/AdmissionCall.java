package io.smslice.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GroupVersionKind;
import io.fabric8.kubernetes.api.model.GroupVersionResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionRequestBuilder;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionResponse;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReview;
import io.fabric8.kubernetes.api.model.admission.v1.AdmissionReviewBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * What the API server does with a mutating webhook, done by the demo because the mock API server
 * calls none: POST an AdmissionReview for the pod to the operator's webhook, and apply the JSON
 * patch it answers with. A denial is an error, as it would be for {@code kubectl apply}.
 */
final class AdmissionCall {
  private final URI webhook;
  private final KubernetesSerialization serialization;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http;

  AdmissionCall(URI webhook, KubernetesSerialization serialization) {
    this.webhook = webhook;
    this.serialization = serialization;
    this.http =
        HttpClient.newBuilder()
            .sslContext(trustAll())
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  Pod mutate(Pod pod, String namespace) throws IOException, InterruptedException {
    String uid = UUID.randomUUID().toString();
    AdmissionReview review =
        new AdmissionReviewBuilder()
            .withRequest(
                new AdmissionRequestBuilder()
                    .withUid(uid)
                    .withKind(new GroupVersionKind("", "Pod", "v1"))
                    .withResource(new GroupVersionResource("", "pods", "v1"))
                    .withRequestKind(new GroupVersionKind("", "Pod", "v1"))
                    .withRequestResource(new GroupVersionResource("", "pods", "v1"))
                    .withName(pod.getMetadata().getName())
                    .withNamespace(namespace)
                    .withOperation("CREATE")
                    .withObject(pod)
                    .withDryRun(false)
                    .build())
            .build();
    review.setApiVersion("admission.k8s.io/v1");
    review.setKind("AdmissionReview");
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(webhook)
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(serialization.asJson(review)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200) {
      throw new IOException(
          "webhook " + webhook + " answered HTTP " + answer.statusCode() + ": " + answer.body());
    }
    AdmissionResponse response =
        serialization.unmarshal(answer.body(), AdmissionReview.class).getResponse();
    if (response == null || !uid.equals(response.getUid())) {
      throw new IOException("webhook answer does not match the request: " + answer.body());
    }
    if (!Boolean.TRUE.equals(response.getAllowed())) {
      String why = response.getStatus() == null ? "" : response.getStatus().getMessage();
      throw new IOException(
          "admission webhook denied pod " + pod.getMetadata().getName() + ": " + why);
    }
    if (response.getPatch() == null) {
      return pod;
    }
    JsonNode patch = json.readTree(Base64.getDecoder().decode(response.getPatch()));
    JsonNode patched = JsonPatch.apply(patch, json.readTree(serialization.asJson(pod)));
    return serialization.unmarshal(json.writeValueAsString(patched), Pod.class);
  }

  /** The operator's certificate is made for the in-cluster Service name; localhost cannot match. */
  private static SSLContext trustAll() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          null,
          new TrustManager[] {
            new X509ExtendedTrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkClientTrusted(X509Certificate[] c, String a, Socket s) {}

              @Override
              public void checkServerTrusted(X509Certificate[] c, String a, Socket s) {}

              @Override
              public void checkClientTrusted(X509Certificate[] c, String a, SSLEngine e) {}

              @Override
              public void checkServerTrusted(X509Certificate[] c, String a, SSLEngine e) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          new SecureRandom());
      return context;
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }
}
