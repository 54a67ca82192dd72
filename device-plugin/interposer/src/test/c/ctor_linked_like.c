/* A program linked with a library (ctor_cuda.c) that uses CUDA from its constructor, before the
 * interposer's own constructor has run. */
#include <stdio.h>

int main(void) {
  printf("main 0 ok\n");
  return 0;
}
