package io.smslice.node.dra.claims;

/**
 * A claim this node cannot prepare; the message starts "smslice: claim ns/name" and says what to
 * change, as the kubelet shows it in the pod's events.
 */
public final class PrepareException extends Exception {
  public PrepareException(String message) {
    super(message);
  }

  public PrepareException(String message, Throwable cause) {
    super(message, cause);
  }

  /** "smslice: claim ns/name " followed by {@code what}. */
  public static PrepareException of(String namespace, String name, String what) {
    return new PrepareException("smslice: claim " + namespace + "/" + name + " " + what);
  }
}
