/* check_ref.h: the real reference data (static/reference/) as a Check
 * fixture, for the domain tests that compute with it: ref is loaded
 * before each test (ref_setup) and freed after it (ref_teardown). */
#ifndef LLMS_CHECK_REF_H
#define LLMS_CHECK_REF_H

#include "check_util.h"

#include "domain/ceiling.h"

static struct ceiling_ref *ref;

/* Loads static/reference/ under the repository root, or fails the test. */
static inline struct ceiling_ref *ref_load(void)
{
	struct err err = ERR_INIT;
	char dir[1024];
	struct ceiling_ref *r;

	snprintf(dir, sizeof dir, "%s/static/reference", repo_root());
	r = ceiling_load(dir, &err);
	ck_assert_msg(r != NULL, "%s", err.message);
	return r;
}

static inline void ref_setup(void)
{
	ref = ref_load();
}

static inline void ref_teardown(void)
{
	ceiling_free(ref);
	ref = NULL;
}

#endif
