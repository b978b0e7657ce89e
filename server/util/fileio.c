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

/* Reads exactly n bytes of the file at path into p; 0, 1 when it does not
 * exist, -1 with err on any other failure.  A file readable by others is
 * brought to 0600. */
int fileio_read_private(const char *path, void *p, size_t n, size_t *got, struct err *err)
{
	struct stat sb;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0 || fstat(fd, &sb) < 0) {
		err_internal(err, "cannot read %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if ((sb.st_mode & 077) && fchmod(fd, 0600) < 0) {
		err_internal(err, "cannot narrow %s to mode 0600: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	r = read(fd, p, n);
	close(fd);
	if (r < 0) {
		err_internal(err, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	*got = (size_t)r;
	return 0;
}
