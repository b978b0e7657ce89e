/* check_util.h: shared helpers for the Check unit tests. */
#ifndef LLMS_CHECK_UTIL_H
#define LLMS_CHECK_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Directory of the third-party vectors (tests/vectors, see its SOURCES.md). */
static inline const char *vectors_dir(void)
{
	const char *d = getenv("LLMSPEED_VECTORS");
	return d ? d : "tests/vectors";
}

/* Repository root (for templates/, migrations/). */
static inline const char *repo_root(void)
{
	const char *d = getenv("LLMSPEED_ROOT");
	return d ? d : ".";
}

/* Reads a whole file dir/name; NULL when it cannot; the caller frees. */
static inline char *read_file_in(const char *dir, const char *name, size_t *len)
{
	char path[1024];
	FILE *f;
	char *s = NULL;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1))) {
		if (fread(s, 1, (size_t)n, f) != (size_t)n) {
			free(s);
			s = NULL;
		} else {
			s[n] = '\0';
			if (len)
				*len = (size_t)n;
		}
	}
	fclose(f);
	return s;
}

/* Reads a whole file under the vectors directory; the caller frees. */
static inline char *read_vector(const char *name, size_t *len)
{
	return read_file_in(vectors_dir(), name, len);
}

/* Each tests/check_X.c defines suite_X() and ends with CHECK_MAIN(suite_X). */
#define CHECK_MAIN(suite_fn)                                         \
	int main(void)                                               \
	{                                                            \
		SRunner *sr = srunner_create(suite_fn());            \
		int failed;                                          \
		srunner_run_all(sr, CK_NORMAL);                      \
		failed = srunner_ntests_failed(sr);                  \
		srunner_free(sr);                                    \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;         \
	}

#endif
