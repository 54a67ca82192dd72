package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.smslice.api.v1alpha1.claim.SliceClaim;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.Stream;

/**
 * The objects of examples/: claims as they are, and one pod per Deployment, Job or Pod. The demo
 * runs no ReplicaSet or Job controller, so it makes the pods their templates describe itself.
 * Services need no object here: the demo's runtime gives each pod the address it would resolve.
 */
record ExampleObjects(List<SliceClaim> claims, List<Pod> pods, List<String> skipped) {

  static ExampleObjects load(Path examples, KubernetesSerialization serialization)
      throws IOException {
    Path root = examples.toRealPath();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(root)) {
      files =
          walk.filter(p -> p.toString().endsWith(".yaml"))
              .filter(
                  p -> !p.startsWith(root.resolve("src")) && !p.startsWith(root.resolve("target")))
              .sorted()
              .toList();
    }
    List<SliceClaim> claims = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    for (Path file : files) {
      for (HasMetadata object : read(file, serialization)) {
        switch (object) {
          case SliceClaim claim -> claims.add(claim);
          case GenericKubernetesResource g when g.getKind().equals("SliceClaim") ->
              claims.add(serialization.convertValue(g, SliceClaim.class));
          case Pod pod -> pods.add(pod);
          case Deployment d ->
              pods.add(podOf(d.getMetadata().getName(), d.getSpec().getTemplate()));
          case Job j -> pods.add(podOf(j.getMetadata().getName(), j.getSpec().getTemplate()));
          default ->
              skipped.add(
                  object.getKind() + " " + object.getMetadata().getName() + " (" + file + ")");
        }
      }
    }
    return new ExampleObjects(List.copyOf(claims), List.copyOf(pods), List.copyOf(skipped));
  }

  private static List<HasMetadata> read(Path file, KubernetesSerialization serialization)
      throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      Object parsed = serialization.unmarshal(in);
      List<HasMetadata> objects = new ArrayList<>();
      if (parsed instanceof List<?> list) {
        list.forEach(o -> objects.add((HasMetadata) o));
      } else if (parsed instanceof HasMetadata one) {
        objects.add(one);
      }
      return objects;
    }
  }

  /** The pod a controller would make from a template; named after its owner, as one replica. */
  private static Pod podOf(String owner, PodTemplateSpec template) {
    var labels = new LinkedHashMap<String, String>();
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(owner)
        .withLabels(labels)
        .withAnnotations(
            template.getMetadata() == null ? null : template.getMetadata().getAnnotations())
        .endMetadata()
        .withSpec(template.getSpec())
        .build();
  }
}
