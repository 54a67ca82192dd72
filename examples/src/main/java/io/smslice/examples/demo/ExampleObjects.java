package io.smslice.examples.demo;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
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
 * Services are kept for the runtime, which gives each pod the address it would resolve.
 */
record ExampleObjects(
    List<SliceClaim> claims, List<Pod> pods, List<Service> services, List<String> skipped) {
  /** The folder of examples for allocation.mode dra. */
  static final String DRA = "dra";

  /** The objects of every examples/ file ending in .yaml (the PyTorch ensemble's end in .yml). */
  static ExampleObjects load(Path examples, KubernetesSerialization serialization)
      throws IOException {
    return load(files(examples, ".yaml"), serialization);
  }

  /**
   * The example files with this ending, outside src/, target/ and dra/ (ResourceClaims need a
   * kube-scheduler, which the demo does not have), in path order.
   */
  static List<Path> files(Path examples, String ending) throws IOException {
    Path root = examples.toRealPath();
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(ending))
          .filter(p -> !p.startsWith(root.resolve("src")) && !p.startsWith(root.resolve("target")))
          .filter(p -> !p.startsWith(root.resolve(DRA)))
          .sorted()
          .toList();
    }
  }

  static ExampleObjects load(List<Path> files, KubernetesSerialization serialization)
      throws IOException {
    List<SliceClaim> claims = new ArrayList<>();
    List<Pod> pods = new ArrayList<>();
    List<Service> services = new ArrayList<>();
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
          case Service service -> services.add(service);
          default ->
              skipped.add(
                  object.getKind() + " " + object.getMetadata().getName() + " (" + file + ")");
        }
      }
    }
    return new ExampleObjects(
        List.copyOf(claims), List.copyOf(pods), List.copyOf(services), List.copyOf(skipped));
  }

  /** These objects and the other's, in that order. */
  ExampleObjects plus(ExampleObjects other) {
    return new ExampleObjects(
        concat(claims, other.claims),
        concat(pods, other.pods),
        concat(services, other.services),
        concat(skipped, other.skipped));
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> all = new ArrayList<>(a);
    all.addAll(b);
    return List.copyOf(all);
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
