package io.smslice.client;

import io.smslice.client.Handles.Buffer;

/** A typed kernel argument. */
public sealed interface Arg {
  record BufferArg(Buffer buffer, long offset) implements Arg {}

  record I32(int value) implements Arg {}

  record I64(long value) implements Arg {}

  record F32(float value) implements Arg {}

  record F64(double value) implements Arg {}

  static Arg buffer(Buffer buffer) {
    return new BufferArg(buffer, 0);
  }

  static Arg buffer(Buffer buffer, long offset) {
    return new BufferArg(buffer, offset);
  }

  static Arg i32(int value) {
    return new I32(value);
  }

  static Arg i64(long value) {
    return new I64(value);
  }

  static Arg f32(float value) {
    return new F32(value);
  }

  static Arg f64(double value) {
    return new F64(value);
  }
}
