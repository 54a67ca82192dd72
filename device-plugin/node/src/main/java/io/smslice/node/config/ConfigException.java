package io.smslice.node.config;

/** A configuration the node side cannot start with; the message says what to change. */
public class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
