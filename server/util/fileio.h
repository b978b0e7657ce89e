/* fileio.h: writing a small file so that a crash leaves the old one or
 * the new one, never half of either (the log's key and checkpoint, and
 * the files `llm-speedd backup` writes beside its copy). */
#ifndef LLMS_FILEIO_H
#define LLMS_FILEIO_H

#include <stddef.h>
#include "util/err.h"

/* fsyncs the folder holding path, so a new or renamed file survives a crash. */
void fileio_sync_dir(const char *path);

/* Writes n bytes to path through "<path>.tmp", created mode 0600 whatever
 * the umask, synced and renamed into place, then syncs the folder.
 * 0, or -1 with the reason in err (the temporary file is removed). */
int fileio_write_private(const char *path, const void *p, size_t n, struct err *err);

/* Reads up to n bytes of the file at path into p (*got: how many): 0; 1
 * when it does not exist; -1 with err on any other failure.  A file that
 * others may read is brought to mode 0600 first. */
int fileio_read_private(const char *path, void *p, size_t n, size_t *got, struct err *err);

#endif
