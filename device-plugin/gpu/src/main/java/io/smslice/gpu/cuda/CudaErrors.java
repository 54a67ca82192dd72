package io.smslice.gpu.cuda;

import io.smslice.gpu.GpuError;
import io.smslice.gpu.GpuException;
import jcuda.driver.CUresult;

/** Driver result codes to {@link GpuException}s. */
final class CudaErrors {
  private CudaErrors() {}

  static void check(int result, String call) throws GpuException {
    if (result != CUresult.CUDA_SUCCESS) {
      throw new GpuException(kind(result), call + ": " + CUresult.stringFor(result));
    }
  }

  static GpuError kind(int result) {
    return switch (result) {
      case CUresult.CUDA_ERROR_INVALID_VALUE, CUresult.CUDA_ERROR_INVALID_HANDLE ->
          GpuError.INVALID_VALUE;
      case CUresult.CUDA_ERROR_OUT_OF_MEMORY -> GpuError.OUT_OF_MEMORY;
      case CUresult.CUDA_ERROR_INVALID_IMAGE,
          CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU,
          CUresult.CUDA_ERROR_INVALID_PTX,
          CUresult.CUDA_ERROR_NOT_FOUND,
          CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION ->
          GpuError.INVALID_IMAGE;
      case CUresult.CUDA_ERROR_NOT_SUPPORTED -> GpuError.NOT_SUPPORTED;
      case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS -> GpuError.ILLEGAL_ADDRESS;
      // Sticky kernel errors: the context cannot be used again.
      case CUresult.CUDA_ERROR_LAUNCH_FAILED,
          CUresult.CUDA_ERROR_LAUNCH_TIMEOUT,
          CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR,
          CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
          CUresult.CUDA_ERROR_MISALIGNED_ADDRESS,
          CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE,
          CUresult.CUDA_ERROR_INVALID_PC,
          CUresult.CUDA_ERROR_MPS_CLIENT_TERMINATED,
          CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED ->
          GpuError.LAUNCH_FAILED;
      default -> GpuError.DRIVER;
    };
  }
}
