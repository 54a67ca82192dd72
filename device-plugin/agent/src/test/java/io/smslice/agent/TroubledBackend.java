package io.smslice.agent;

import io.smslice.gpu.GpuBackend;
import io.smslice.gpu.GpuStream;
import io.smslice.gpu.GreenContext;
import io.smslice.gpu.simulated.SimulatedBackend;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The simulated backend with trouble on demand, for the green contexts that contain one split
 * group: a stream call that does not return until told (a kernel that never ends) or a call that
 * throws an Error (a bug or an exhausted heap inside the agent). Everything else is the simulated
 * backend's.
 */
final class TroubledBackend {
  private final SimulatedBackend simulated = SimulatedBackend.h200(1);
  private final int group;
  private final CountDownLatch kernelEnds = new CountDownLatch(1);
  final CountDownLatch hung = new CountDownLatch(1);
  final AtomicInteger contextsClosed = new AtomicInteger();

  /** The GpuStream methods called, in order, on the troubled contexts' streams. */
  final Queue<String> streamCalls = new ConcurrentLinkedQueue<>();

  private volatile String hangIn;
  private volatile String failIn;
  private volatile Supplier<Error> error;

  /** Trouble only for green contexts that contain split group {@code group}. */
  TroubledBackend(int group) {
    this.group = group;
  }

  /** The next calls of this GpuStream method block until {@link #endKernel()}. */
  void hangIn(String streamMethod) {
    hangIn = streamMethod;
  }

  void endKernel() {
    hangIn = null;
    kernelEnds.countDown();
  }

  /** Calls of this GreenContext or GpuStream method throw the error, until {@link #heal()}. */
  void failIn(String method, Supplier<Error> error) {
    this.error = error;
    failIn = method;
  }

  void heal() {
    failIn = null;
  }

  GpuBackend backend() {
    return proxy(
        GpuBackend.class,
        simulated,
        (method, args, result) -> {
          if (method.equals("createGreenContext") && ((List<?>) args[1]).contains(group)) {
            return proxy(GreenContext.class, result, this::context);
          }
          return result;
        });
  }

  private Object context(String method, Object[] args, Object result) {
    if (method.equals("close")) {
      contextsClosed.incrementAndGet();
    }
    return method.equals("createStream") ? proxy(GpuStream.class, result, (m, a, r) -> r) : result;
  }

  /** What to do after a call returned: replace its result. */
  private interface After {
    Object apply(String method, Object[] args, Object result);
  }

  private <T> T proxy(Class<T> type, Object target, After after) {
    InvocationHandler handler =
        (self, method, args) -> {
          String name = method.getName();
          if (type != GpuBackend.class && name.equals(failIn)) {
            throw error.get();
          }
          if (type == GpuStream.class) {
            streamCalls.add(name);
          }
          if (type == GpuStream.class && name.equals(hangIn)) {
            hung.countDown();
            kernelEnds.await();
          }
          try {
            return after.apply(name, args, method.invoke(target, args));
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
  }
}
