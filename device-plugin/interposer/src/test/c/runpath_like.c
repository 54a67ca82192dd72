/* dlopen through the interposer keeps the caller's RUNPATH: prints "plain <ok>" and "deep <ok>". */
#include <stdio.h>

int open_hidden(int deep);

int main(void) {
  printf("plain %d\n", open_hidden(0));
  printf("deep %d\n", open_hidden(1));
  return 0;
}
