/* fileio.c: small files written whole or not at all (see fileio.h). */
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void fileio_sync_dir(const char *path)
{
	char copy[4096];
	int fd;

	snprintf(copy, sizeof copy, "%s", path);
	if ((fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
}

int fileio_write_private(const char *path, const void *p, size_t n, struct err *err)
{
	char tmp[4200];
	int fd, ok;

	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_internal(err, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	ok = fchmod(fd, 0600) == 0 && write(fd, p, n) == (ssize_t)n && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) < 0) {
		err_internal(err, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	fileio_sync_dir(path);
	return 0;
}
