package io.smslice.node.dra.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.agent.ClaimStatus;
import io.smslice.gpu.simulated.SimulatedBackend;
import io.smslice.node.dra.DraGpu;
import io.smslice.node.dra.DraTestbedGpus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

class GroupAllocatorTest {
  private static final DraGpu GPU = DraTestbedGpus.draGpu(SimulatedBackend.h200Device(0));

  @Test
  void theH200sRemainderGroupIsNotOffered() {
    assertThat(GPU.groupIds()).hasSize(15).doesNotContain(15);
    assertThat(GPU.smCount()).isEqualTo(120);
  }

  @Test
  void groupsTheAgentServesAreTaken() {
    List<ClaimStatus> served =
        List.of(new ClaimStatus("ns", "other", GPU.uuid(), List.of(0, 2), true, null));
    GroupAllocator allocator = new GroupAllocator(() -> served);
    assertThat(allocator.hold("u1", "ns/mine", GPU, 2)).contains(List.of(1, 3));
    // the claim's own served groups do not count against it (a re-prepare after a restart)
    assertThat(new GroupAllocator(() -> served).hold("u2", "ns/other", GPU, 2))
        .contains(List.of(0, 1));
  }

  @Test
  void aFullGpuAndAZeroCountGiveNothing() {
    GroupAllocator allocator = new GroupAllocator(List::of);
    assertThat(allocator.hold("a", "ns/a", GPU, 15)).isPresent();
    assertThat(allocator.hold("b", "ns/b", GPU, 1)).isEmpty();
    assertThat(allocator.hold("c", "ns/c", GPU, 0)).isEmpty();
    allocator.free("a");
    assertThat(allocator.hold("b", "ns/b", GPU, 1)).contains(List.of(0));
  }

  /**
   * Random holds, frees and agent serves (a claim served takes its held groups, as prepare does):
   * no group is ever held or served twice, and a hold fails only when too few groups are free.
   */
  @RepeatedTest(20)
  void holdsStayDisjointUnderRandomWork() {
    Random random = new Random();
    long seed = random.nextLong();
    random.setSeed(seed);
    List<ClaimStatus> served = new CopyOnWriteArrayList<>();
    GroupAllocator allocator = new GroupAllocator(() -> List.copyOf(served));
    Map<String, List<Integer>> live = new HashMap<>();
    for (int step = 0; step < 500; step++) {
      int op = random.nextInt(3);
      if (op < 2 || live.isEmpty()) {
        String uid = "u" + step;
        int count = 1 + random.nextInt(6);
        int free = 15 - live.values().stream().mapToInt(List::size).sum();
        Optional<List<Integer>> got = allocator.hold(uid, "ns/" + uid, GPU, count);
        assertThat(got.isPresent())
            .as("seed %d step %d: %d free, %d asked", seed, step, free, count)
            .isEqualTo(count <= free);
        got.ifPresent(
            g -> {
              live.put(uid, g);
              if (random.nextBoolean()) {
                served.add(new ClaimStatus("ns", uid, GPU.uuid(), g, true, null));
              }
            });
      } else {
        String uid = new ArrayList<>(live.keySet()).get(random.nextInt(live.size()));
        live.remove(uid);
        allocator.free(uid);
        served.removeIf(s -> s.name().equals(uid));
      }
      Set<Integer> seen = new HashSet<>();
      for (List<Integer> g : live.values()) {
        for (int id : g) {
          assertThat(seen.add(id)).as("seed %d: group %d twice", seed, id).isTrue();
          assertThat(GPU.groupIds()).contains(id);
        }
      }
    }
  }
}
