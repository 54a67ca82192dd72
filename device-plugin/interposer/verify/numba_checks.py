"""numba under the interposer (run-on-gpu.sh part numba): a numba kernel called twice in one
process (numba checks on every call that the current context is the primary context it retained),
its result checked, and the distinct SMs of the %smid probe in the same process. One line of
key=value results."""
import ctypes
import os

import numpy as np

# numba 0.68 types numpy.row_stack, which numpy 2.4 removed (the GPU machine has both; the kernel
# compile fails without the interposer too): the alias numpy had for years.
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack

from numba import cuda  # noqa: E402

PROBE = os.path.join(os.environ.get("SMSLICE_VERIFY_BUILD", "."), "libsmid_probe.so")


@cuda.jit
def add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def call(n):
    host = np.arange(n, dtype=np.float32)
    dev = cuda.to_device(host)
    add_one[(n + 255) // 256, 256](dev)
    return bool(np.array_equal(dev.copy_to_host(), host + 1))


def main():
    import numba

    results = []
    for _ in range(2):
        try:
            results.append("ok" if call(1 << 20) else "wrong")
        except Exception as e:  # the line must say what failed
            results.append(type(e).__name__ + ":" + str(e).replace(" ", "_")[:120])
    sms = ctypes.CDLL(PROBE).smslice_distinct_sms()
    mp = cuda.get_current_device().MULTIPROCESSOR_COUNT
    print(f"numba={numba.__version__} numpy={np.__version__} first={results[0]} second={results[1]} "
          f"device_sm_count={mp} distinct_sms={sms}", flush=True)


main()
