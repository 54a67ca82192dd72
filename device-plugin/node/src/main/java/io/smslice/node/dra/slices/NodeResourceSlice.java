package io.smslice.node.dra.slices;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.smslice.node.dra.DraDriver;
import io.smslice.node.dra.DraGpu;
import io.smslice.node.health.GpuCondition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The spec of this node's one ResourceSlice (docs/dra.md): pool and slice named by the node, one
 * device per green-mode GPU with its SMs and memory as consumable capacity (many claims share a
 * device), attributes to select on, and a NoSchedule taint while the GPU is unhealthy.
 */
public final class NodeResourceSlice {
  public static final String UNHEALTHY_TAINT = "smslice.io/unhealthy";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int NAME_MAX = 253;
  private static final int TAINT_VALUE_MAX = 63;

  /** A GPU as the slice shows it now. */
  public record GpuState(DraGpu gpu, GpuCondition condition, boolean mps) {}

  private NodeResourceSlice() {}

  /** The slice's name: {@code <node>-smslice.io}, shortened with a hash past 253 characters. */
  public static String name(String nodeName) {
    String name = nodeName + "-" + DraDriver.NAME;
    if (name.length() <= NAME_MAX) {
      return name;
    }
    String hash = sha256(nodeName).substring(0, 10);
    return nodeName.substring(0, NAME_MAX - DraDriver.NAME.length() - hash.length() - 2)
        + "-"
        + hash
        + "-"
        + DraDriver.NAME;
  }

  /** The spec, with pool generation {@code generation}. */
  public static ObjectNode spec(String nodeName, long generation, List<GpuState> gpus) {
    ObjectNode spec = JSON.createObjectNode();
    spec.put("driver", DraDriver.NAME);
    spec.put("nodeName", nodeName);
    ObjectNode pool = spec.putObject("pool");
    pool.put("name", nodeName);
    pool.put("generation", generation);
    pool.put("resourceSliceCount", 1);
    var devices = spec.putArray("devices");
    for (GpuState s : gpus) {
      DraGpu g = s.gpu();
      ObjectNode d = devices.addObject();
      d.put("name", g.deviceName());
      d.put("allowMultipleAllocations", true);
      ObjectNode a = d.putObject("attributes");
      a.putObject("uuid").put("string", g.uuid());
      a.putObject("model").put("string", g.product());
      a.putObject("index").put("int", g.index());
      a.putObject("smCount").put("int", g.smCount());
      a.putObject("smGroupSize").put("int", g.groupSize());
      a.putObject("smGroups").put("int", g.groupIds().size());
      a.putObject("mode").put("string", "green");
      a.putObject("mps").put("bool", s.mps());
      ObjectNode capacity = d.putObject("capacity");
      ObjectNode sms = capacity.putObject("sms");
      sms.put("value", String.valueOf(g.smCount()));
      ObjectNode smsPolicy = sms.putObject("requestPolicy");
      smsPolicy.put("default", String.valueOf(g.groupSize()));
      ObjectNode smsRange = smsPolicy.putObject("validRange");
      smsRange.put("min", String.valueOf(g.groupSize()));
      smsRange.put("max", String.valueOf(g.smCount()));
      smsRange.put("step", String.valueOf(g.groupSize()));
      ObjectNode memory = capacity.putObject("memory");
      memory.put("value", String.valueOf(g.memoryBytes()));
      ObjectNode memoryPolicy = memory.putObject("requestPolicy");
      memoryPolicy.put("default", "0");
      ObjectNode memoryRange = memoryPolicy.putObject("validRange");
      memoryRange.put("min", "0");
      memoryRange.put("step", "1Mi");
      if (!s.condition().healthy()) {
        ObjectNode taint = d.putArray("taints").addObject();
        taint.put("key", UNHEALTHY_TAINT);
        taint.put("value", taintValue(s.condition().reason()));
        taint.put("effect", "NoSchedule");
      }
    }
    return spec;
  }

  /** A label value: at most 63 of [A-Za-z0-9_.-], starting and ending alphanumeric. */
  static String taintValue(String reason) {
    String v = reason == null ? "" : reason.replaceAll("[^A-Za-z0-9_.-]+", "-");
    if (v.length() > TAINT_VALUE_MAX) {
      v = v.substring(0, TAINT_VALUE_MAX);
    }
    v = v.replaceAll("^[^A-Za-z0-9]+", "").replaceAll("[^A-Za-z0-9]+$", "");
    return v.isEmpty() ? "unhealthy" : v;
  }

  private static String sha256(String s) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
