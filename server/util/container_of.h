/* container_of.h: from a pointer to a struct's member back to the struct. */
#ifndef LLMS_CONTAINER_OF_H
#define LLMS_CONTAINER_OF_H

#include <stddef.h>

/* The struct of type type whose member member ptr points at, e.g. in a
 * db_job callback: struct upload *u = container_of(j, struct upload, n.j). */
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#endif
