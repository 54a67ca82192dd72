package io.smslice.e2e;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;

/** Hands tests the one {@link TestCluster}, and prints its diagnostics when a test fails. */
public final class ClusterExtension
    implements ParameterResolver, TestWatcher, LifecycleMethodExecutionExceptionHandler {
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == TestCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return TestCluster.of(context);
  }

  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable cause)
      throws Throwable {
    System.out.println(
        "==== "
            + context.getDisplayName()
            + " set-up failed: "
            + cause
            + "\n"
            + TestCluster.of(context).diagnostics());
    throw cause;
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    System.out.println(
        "==== "
            + context.getDisplayName()
            + " failed: "
            + cause
            + "\n"
            + TestCluster.of(context).diagnostics());
  }
}
