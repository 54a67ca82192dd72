package io.smslice.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.smslice.examples.docs.UserMessages.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reader of messages from sources, on small sources of each kind it reads. */
class UserMessagesTest {
  @Test
  void javaExpressionKeepsItsLiteralsJoinedAndSplitAtValues() {
    String java =
        """
        // "smslice: a comment is not a message"
        throw new AllocationException(
            "smslice: claim " + name + " is bound to GPU " + uuid
                + ", not a green GPU" + " of this node", cause);
        """;
    List<Message> m = UserMessages.at("F.java", java, "\"smslice: ");
    assertThat(m).hasSize(1);
    assertThat(m.get(0).where()).isEqualTo("F.java:3");
    assertThat(m.get(0).pieces())
        .containsExactly("is bound to GPU", ", not a green GPU of this node");
  }

  @Test
  void cCallKeepsEveryLiteralArgumentAndSplitsAtConversions() {
    String c =
        """
        /* smslice_error("not this one") */
        smslice_error("split(minCount %d) of GPU %s gave %d entries here; the "
                      "groups would not be the claim's", n, uuid, e);
        return fail(fd, why, len, "%s", "SMSLICE_TOKEN is not set");
        """;
    assertThat(UserMessages.at("a.c", c, "smslice_error("))
        .singleElement()
        .extracting(Message::pieces)
        .isEqualTo(List.of("split(minCount", "entries here; the groups would not be the claim's"));
    assertThat(UserMessages.at("a.c", c, "fail(").get(0).pieces())
        .containsExactly("SMSLICE_TOKEN is not set");
  }

  @Test
  void chartFailuresStartingWithSmsliceAreRead() {
    String template =
        """
        {{- fail "smslice: the webhook has no certificate" }}
        {{- fail (printf "smslice: node.configs has no \\"default\\" entry, got %q" $x) }}
        {{- fail "someone else's message" }}
        """;
    List<Message> m = UserMessages.chartFailures("t.yaml", template);
    assertThat(m)
        .extracting(Message::pieces)
        .containsExactly(
            List.of("the webhook has no certificate"),
            List.of("node.configs has no \"default\" entry, got"));
  }

  @Test
  void camelCaseLiteralsOutsideCommentsAreReasonCandidates() {
    String java =
        """
        /** "NotThisOne" */
        events.warning(pod, "ClaimNotBound", "waiting for the claim");
        set(conditions, READY, "True", "Serving", message);
        """;
    assertThat(UserMessages.camelCaseLiterals(java))
        .containsExactly("ClaimNotBound", "True", "Serving");
  }
}
