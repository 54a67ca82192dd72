package io.smslice.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smslice.client.SmsliceClient;
import io.smslice.client.SmsliceException;
import io.smslice.protocol.Status;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, finding 13: a token opens exactly its own claim, survives an agent restart, and is gone
 * once its claim is deleted.
 */
class TokenScopeTest {
  @TempDir Path directory;

  @Test
  void aTokenOpensItsOwnClaimOnlyNotOthersOfTheNamespace() {
    try (AgentFixture fixture = new AgentFixture(directory)) {
      fixture.serve("a", List.of(0), 1 << 20);
      fixture.serve("b", List.of(1), 1 << 20);
      String tokenOfA = fixture.agent.issueToken("team", "a", "pod-1", "main");

      try (SmsliceClient own = SmsliceClient.connect(fixture.socket("a"), "team/a", tokenOfA)) {
        assertThat(own.info().sms()).isEqualTo(8);
      }
      assertUnauthorized(fixture.socket("b"), "team/b", tokenOfA);
      // Naming claim a on b's socket does not help either.
      assertUnauthorized(fixture.socket("b"), "team/a", tokenOfA);
    }
  }

  @Test
  void tokensSurviveAnAgentRestart() {
    String token;
    try (AgentFixture before = new AgentFixture(directory)) {
      before.serve("a", List.of(0), 1 << 20);
      token = before.agent.issueToken("team", "a", "pod-1", "main");
    }
    try (AgentFixture after = new AgentFixture(directory);
        SmsliceClient client = reconnect(after, token)) {
      assertThat(client.info().sms()).isEqualTo(8);
    }
  }

  @Test
  void aDeletedClaimsTokensAreForgottenAcrossRestartsAndOthersKept() {
    String tokenOfA;
    String tokenOfB;
    try (AgentFixture before = new AgentFixture(directory)) {
      before.serve("a", List.of(0), 1 << 20);
      before.serve("b", List.of(1), 1 << 20);
      tokenOfA = before.agent.issueToken("team", "a", "pod-1", "main");
      tokenOfB = before.agent.issueToken("team", "b", "pod-2", "main");
      before.agent.release("team", "a");
      before.agent.forgetTokens("team", "a");
    }
    try (AgentFixture after = new AgentFixture(directory)) {
      after.serve("a", List.of(0), 1 << 20);
      after.serve("b", List.of(1), 1 << 20);
      assertUnauthorized(after.socket("a"), "team/a", tokenOfA);
      try (SmsliceClient b = SmsliceClient.connect(after.socket("b"), "team/b", tokenOfB)) {
        assertThat(b.info().sms()).isEqualTo(8);
      }
    }
  }

  private static SmsliceClient reconnect(AgentFixture fixture, String token) {
    fixture.serve("a", List.of(0), 1 << 20);
    return SmsliceClient.connect(fixture.socket("a"), "team/a", token);
  }

  private static void assertUnauthorized(Path socket, String claim, String token) {
    assertThatThrownBy(() -> SmsliceClient.connect(socket, claim, token).close())
        .isInstanceOf(SmsliceException.class)
        .satisfies(e -> assertThat(((SmsliceException) e).status()).isEqualTo(Status.UNAUTHORIZED));
  }
}
