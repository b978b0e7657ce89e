/* page_model.h: what page_model.c shares with page_model_digests.c (the
 * model page's list of digests); nothing else includes it. */
#ifndef LLMS_PAGE_MODEL_H
#define LLMS_PAGE_MODEL_H

#include <jansson.h>

#include "pages/browse.h"

/* One model page being built. */
struct mpage {
	struct browse b;
	const char *slug;
	const char *digest;      /* the digest shown, owned by m; NULL: none */
	json_t *m;               /* the view model */
	enum browse_sort sort;
	int sort_given;          /* ?sort= named the order: the page lists combinations only */
	int has_dafter;          /* ?digests_after= gave the digest list's cursor */
	long long dafter_keys, dafter_runs;
	double dafter_decode;
	char dafter_digest[80];
};

/* page_model_digests.c: one page of the model's digests (?digests_after=),
 * most signing keys first, into p->m's "digests", "digests_next", "digests_first",
 * and the one shown, "digest": ?digest= (404 when the model has no such
 * digest) or the first; sets p->digest.  0, or -1 with p->b's failure set
 * (400 for a malformed ?digests_after=). */
int model_load_digests(struct mpage *p);

/* page_model_best.c: into p->m "best_per_hw": on each hardware the
 * combination that ranks first across the listed digests within the
 * ?backend= filter (a confirmed
 * one before any other, then the highest median), each {the typical
 * figures (store/typical.h), name (the hardware's), quantization, format,
 * label ("mlx, MLX-4bit (mlx)"), digest_short, href (the
 * model-on-hardware page), runs_href}, fastest first, with "has_best"
 * and, for pages, "best_chart_svg" (a bar per hardware, what ran in its
 * label).  0, or -1 with p->b's failure set. */
int model_load_best(struct mpage *p);

#endif
