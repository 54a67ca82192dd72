package io.smslice.examples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD dispatcher plus the API-server behaviours smslice uses and the mock lacks: {@code
 * POST .../pods/NAME/binding}, which sets the pod's {@code spec.nodeName} to the binding's target
 * (refused, as by the API server, when the pod is already bound elsewhere); listing pods with the
 * field selector {@code spec.nodeName=NODE}, as a node agent does; and the self-subject access and
 * rules reviews the operator's start-up asks for, answered as for a cluster administrator (the
 * demo's API server has no authorization).
 */
final class ApiServerBehaviour extends KubernetesCrudDispatcher {
  private static final String REVIEWS = "/apis/authorization.k8s.io/v1/selfsubject";
  private static final Pattern POD_LIST =
      Pattern.compile("/api/v1/(namespaces/[^/]+/)?pods\\?(.*)");
  private static final Pattern NODE_FIELD = Pattern.compile("spec\\.nodeName(%3D|=)([^,&]*)");
  private static final Pattern BINDING =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/?]+)/binding(\\?.*)?");
  private final ObjectMapper json = new ObjectMapper();

  ApiServerBehaviour() {
    super(List.of());
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    if (request.method() == HttpMethod.POST && request.getPath().startsWith(REVIEWS)) {
      return review(request);
    }
    Matcher list = POD_LIST.matcher(request.getPath());
    if (request.method() == HttpMethod.GET
        && list.matches()
        && !list.group(2).contains("watch=true")
        && NODE_FIELD.matcher(list.group(2)).find()) {
      return podsOnNode(request.getPath());
    }
    Matcher m = BINDING.matcher(request.getPath());
    if (request.method() != HttpMethod.POST || !m.matches()) {
      return super.dispatch(request);
    }
    String podPath = "/api/v1/namespaces/" + m.group(1) + "/pods/" + m.group(2);
    try {
      JsonNode binding = json.readTree(request.getUtf8Body());
      String node = binding.path("target").path("name").asText("");
      if (node.isEmpty()) {
        return status(400, "BadRequest", "binding has no target.name");
      }
      MockResponse current = handleGet(podPath);
      if (current.code() != 200) {
        return current;
      }
      JsonNode pod = json.readTree(current.getBody().readUtf8());
      String bound = pod.path("spec").path("nodeName").asText("");
      if (!bound.isEmpty() && !bound.equals(node)) {
        return status(
            409, "Conflict", "pod " + m.group(2) + " is already assigned to node " + bound);
      }
      ObjectNode patch = json.createObjectNode();
      patch.putObject("spec").put("nodeName", node);
      MockResponse patched =
          handlePatch(
              new RecordedRequest(
                  "HTTP/1.1",
                  HttpMethod.PATCH,
                  podPath,
                  Headers.builder().add("Content-Type", "application/merge-patch+json").build(),
                  new Buffer().writeUtf8(json.writeValueAsString(patch))));
      return patched.code() / 100 == 2 ? status(201, "", "") : patched;
    } catch (IOException e) {
      return status(400, "BadRequest", "binding is not valid JSON: " + e.getMessage());
    }
  }

  /** The pod list without the node field selector, then filtered by spec.nodeName. */
  private MockResponse podsOnNode(String path) {
    Matcher field = NODE_FIELD.matcher(path);
    field.find();
    String node = URLDecoder.decode(field.group(2), StandardCharsets.UTF_8);
    String unfiltered = path.replaceAll("fieldSelector=[^&]*&?", "").replaceAll("[?&]$", "");
    MockResponse all = handleGet(unfiltered);
    if (all.code() != 200) {
      return all;
    }
    try {
      ObjectNode podList = (ObjectNode) json.readTree(all.getBody().readUtf8());
      var kept = json.createArrayNode();
      for (JsonNode pod : podList.path("items")) {
        if (node.equals(pod.path("spec").path("nodeName").asText())) {
          kept.add(pod);
        }
      }
      podList.set("items", kept);
      return new MockResponse().setResponseCode(200).setBody(podList.toString());
    } catch (IOException | ClassCastException e) {
      return status(500, "InternalError", "pod list is not JSON: " + e.getMessage());
    }
  }

  /** Everything is allowed: the review comes back with an allowing status. */
  private MockResponse review(RecordedRequest request) {
    try {
      ObjectNode review = (ObjectNode) json.readTree(request.getUtf8Body());
      ObjectNode status = review.putObject("status");
      if (request.getPath().startsWith(REVIEWS + "rulesreviews")) {
        ObjectNode rule = status.putArray("resourceRules").addObject();
        rule.putArray("verbs").add("*");
        rule.putArray("apiGroups").add("*");
        rule.putArray("resources").add("*");
        status.putArray("nonResourceRules").addObject().putArray("verbs").add("*");
        status.put("incomplete", false);
      } else {
        status.put("allowed", true);
      }
      return new MockResponse().setResponseCode(201).setBody(review.toString());
    } catch (IOException | ClassCastException e) {
      return status(400, "BadRequest", "review is not a JSON object");
    }
  }

  private MockResponse status(int code, String reason, String message) {
    ObjectNode status = json.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1");
    status.put("status", code < 300 ? "Success" : "Failure").put("code", code);
    if (!reason.isEmpty()) {
      status.put("reason", reason).put("message", message);
    }
    return new MockResponse().setResponseCode(code).setBody(status.toString());
  }
}
