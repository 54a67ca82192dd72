/* Rebinding the imports of objects the dynamic loader did not bind to the interposer. */
#ifndef SMSLICE_IMPORTS_H
#define SMSLICE_IMPORTS_H

#include <link.h>

/* Points the object's GOT entries for dlsym, dlopen, dlmopen and the wrapped driver entry points
 * at the interposer's functions, where they hold glibc's or the driver's own (or are not bound
 * yet). With other_namespace, every other driver entry point is pointed at the main namespace's
 * driver, so that one driver, the wrapped one, serves the whole process. */
void imports_rebind(struct link_map *map, int other_namespace);

#endif
