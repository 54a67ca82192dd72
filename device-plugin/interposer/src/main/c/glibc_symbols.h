/* Binds the interposer to the oldest versions of the glibc symbols it uses, so that one library
 * loads into images of glibc 2.17 and later (CUDA base images of Ubuntu 20.04, UBI 8, Debian 11
 * among them). Linking against a newer glibc would otherwise pick the default versions, several
 * of which (the dl* and pthread functions that moved into libc) exist only since glibc 2.34.
 * Included first in every source file by the Makefile; InterposerSymbolVersionsTest checks the
 * result. dlopen, dlmopen and dlsym are the interposer's own: glibc's are reached through
 * dlvsym (real.c). */
#ifndef SMSLICE_GLIBC_SYMBOLS_H
#define SMSLICE_GLIBC_SYMBOLS_H

#define SMSLICE_OLD_SYMBOL(name, version) __asm__(".symver " #name "," #name "@" #version)

SMSLICE_OLD_SYMBOL(dlclose, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(dlerror, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(dlvsym, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(dladdr, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(dladdr1, GLIBC_2.3.3);
SMSLICE_OLD_SYMBOL(dlinfo, GLIBC_2.3.3);
SMSLICE_OLD_SYMBOL(pthread_create, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(pthread_sigmask, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(pthread_once, GLIBC_2.2.5);
SMSLICE_OLD_SYMBOL(memcpy, GLIBC_2.2.5);

#endif
