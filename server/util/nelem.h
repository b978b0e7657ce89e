/* nelem.h: the number of elements of an array (not a pointer). */
#ifndef LLMS_NELEM_H
#define LLMS_NELEM_H

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#endif
