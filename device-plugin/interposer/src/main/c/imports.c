/* Libraries loaded with RTLD_DEEPBIND look up symbols in their own dependencies (libc among
 * them) before the preloaded interposer, and objects of a dlmopen namespace never see it (it is
 * loaded in the main namespace only): their calls to dlsym and to the driver would reach glibc's
 * and the driver's own functions, past every wrapper. This rewrites those objects' GOT entries,
 * as the dynamic loader would have bound them in the main namespace without DEEPBIND. */
#include "imports.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"
#include "real.h"
#include "wrappers.h"

EXPORTED void *dlsym(void *, const char *);
EXPORTED void *dlopen(const char *, int);
EXPORTED void *dlmopen(Lmid_t, const char *, int);

enum { MAX_WRITABLE = 8 };

typedef struct {
  uintptr_t lo, hi;             /* the object's mapped range */
  uintptr_t relro_lo, relro_hi; /* read-only after relocation */
  uintptr_t writable[MAX_WRITABLE][2]; /* segments loaded writable (the GOT lies in one) */
  int writable_count;
} object_range;

static int range_of(const struct link_map *map, object_range *out) {
  Dl_info info;
  if (dladdr(map->l_ld, &info) == 0 || info.dli_fbase == NULL) return -1;
  const ElfW(Ehdr) *eh = info.dli_fbase;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return -1;
  const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
  *out = (object_range){UINTPTR_MAX, 0, 0, 0, {{0}}, 0};
  for (int i = 0; i < eh->e_phnum; i++) {
    uintptr_t start = map->l_addr + ph[i].p_vaddr, end = start + ph[i].p_memsz;
    if (ph[i].p_type == PT_LOAD) {
      if (start < out->lo) out->lo = start;
      if (end > out->hi) out->hi = end;
      if ((ph[i].p_flags & PF_W) && out->writable_count < MAX_WRITABLE) {
        out->writable[out->writable_count][0] = start;
        out->writable[out->writable_count++][1] = end;
      }
    } else if (ph[i].p_type == PT_GNU_RELRO) {
      out->relro_lo = start, out->relro_hi = end;
    }
  }
  return out->hi > out->lo ? 0 : -1;
}

/* glibc's function of that name, in the main namespace's libc or in another namespace's copy. */
static int loader_fn(const char *name, void *fn) {
  if (is_glibc_loader_fn(name, fn)) return 1;
  Dl_info info;
  if (fn == NULL || dladdr(fn, &info) == 0 || info.dli_fname == NULL || info.dli_sname == NULL)
    return 0;
  const char *base = strrchr(info.dli_fname, '/');
  base = base == NULL ? info.dli_fname : base + 1;
  return (strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libdl.so", 8) == 0) &&
         strcmp(info.dli_sname, name) == 0;
}

/* What an import should hold instead of current, or NULL to leave it. An entry that points into
 * the object itself is a lazy binding not made yet. */
static void *replacement(const char *name, void *current, const object_range *r, int other_ns) {
  int unbound = (uintptr_t)current >= r->lo && (uintptr_t)current < r->hi;
  if (name[0] == 'd' && name[1] == 'l') {
    void *ours = strcmp(name, "dlsym") == 0     ? (void *)dlsym
                 : strcmp(name, "dlopen") == 0  ? (void *)dlopen
                 : strcmp(name, "dlmopen") == 0 ? (void *)dlmopen
                                                : NULL;
    return ours != NULL && (unbound || loader_fn(name, current)) ? ours : NULL;
  }
  if (name[0] != 'c' || name[1] != 'u') return NULL;
  int id = hook_for_symbol(name);
  if (id >= 0) return unbound || in_libcuda(current) ? hooks[id].wrapper : NULL;
  if (other_ns && (unbound || in_other_libcuda(current))) return real_cuda(name);
  return NULL;
}

/* Only a slot in a segment loaded writable (a relocation in text, say, is left alone). */
static void write_slot(void **slot, void *value, const object_range *r) {
  uintptr_t at = (uintptr_t)slot;
  int writable = 0;
  for (int i = 0; i < r->writable_count; i++)
    writable |= at >= r->writable[i][0] && at + sizeof value <= r->writable[i][1];
  if (!writable) return;
  if (at >= r->relro_lo && at < r->relro_hi) {
    uintptr_t page = at & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    size_t len = at + sizeof value - page;
    if (mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0) {
      smslice_error("cannot rebind an import of a library loaded apart from the interposer");
      return;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    mprotect((void *)page, len, PROT_READ);
  } else {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
  }
}

static void rebind_table(const struct link_map *map, const ElfW(Rela) *rel, size_t bytes,
                         const ElfW(Sym) *symtab, const char *strtab, const object_range *r,
                         int other_ns) {
  for (size_t i = 0; i < bytes / sizeof *rel; i++) {
    unsigned type = ELF64_R_TYPE(rel[i].r_info);
    if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT &&
        !(type == R_X86_64_64 && rel[i].r_addend == 0))
      continue;
    const ElfW(Sym) *sym = &symtab[ELF64_R_SYM(rel[i].r_info)];
    if (sym->st_shndx != SHN_UNDEF || sym->st_name == 0) continue;
    void **slot = (void **)(map->l_addr + rel[i].r_offset);
    void *value = replacement(strtab + sym->st_name, *slot, r, other_ns);
    if (value != NULL && value != *slot) write_slot(slot, value, r);
  }
}

/* The dynamic section's addresses are relocated in place by the loader on this platform; an
 * unrelocated one (below the load bias) is made absolute here. */
static uintptr_t absolute(const struct link_map *map, uintptr_t p) {
  return p < map->l_addr ? p + map->l_addr : p;
}

void imports_rebind(struct link_map *map, int other_namespace) {
  object_range r;
  if (map->l_ld == NULL || range_of(map, &r) != 0) return;
  Dl_info self;
  if (dladdr((void *)imports_rebind, &self) != 0 && (uintptr_t)self.dli_fbase == r.lo) return;
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  const ElfW(Rela) *rela = NULL, *plt = NULL;
  size_t rela_bytes = 0, plt_bytes = 0;
  int plt_is_rela = 1;
  for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++) {
    switch (d->d_tag) {
      case DT_SYMTAB: symtab = (const ElfW(Sym) *)absolute(map, d->d_un.d_ptr); break;
      case DT_STRTAB: strtab = (const char *)absolute(map, d->d_un.d_ptr); break;
      case DT_RELA: rela = (const ElfW(Rela) *)absolute(map, d->d_un.d_ptr); break;
      case DT_RELASZ: rela_bytes = d->d_un.d_val; break;
      case DT_JMPREL: plt = (const ElfW(Rela) *)absolute(map, d->d_un.d_ptr); break;
      case DT_PLTRELSZ: plt_bytes = d->d_un.d_val; break;
      case DT_PLTREL: plt_is_rela = d->d_un.d_val == DT_RELA; break;
      default: break;
    }
  }
  if (symtab == NULL || strtab == NULL) return;
  if (rela != NULL) rebind_table(map, rela, rela_bytes, symtab, strtab, &r, other_namespace);
  if (plt != NULL && plt_is_rela)
    rebind_table(map, plt, plt_bytes, symtab, strtab, &r, other_namespace);
}
