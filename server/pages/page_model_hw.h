/* page_model_hw.h: what page_model_hw.c shares with the files that add to
 * the model-on-hardware page; nothing else includes it. */
#ifndef LLMS_PAGE_MODEL_HW_H
#define LLMS_PAGE_MODEL_HW_H

#include <jansson.h>

#include "pages/browse.h"
#include "util/slug.h"

/* Weights files of a model listed on an empty page, at most. */
#define MHW_DIGESTS_MAX_S "20"

/* One model-on-hardware page being built. */
struct mhw {
	struct browse b;
	char model[SLUG_MAX + 1];   /* the model's slug */
	char hw[SLUG_MAX + 1];      /* the hardware's slug */
	int measured_model;         /* the suite counts a run of the model */
	size_t nrows;               /* combinations with a typical figure */
	int fits;                   /* 1, 0: the model fits the machine with the
				     * usual lightest weights (ceiling_fit), -1:
				     * the reference data cannot tell */
	json_t *m;                  /* the view model */
};

/* The fastest measured row of the view model m (the first row of each
 * weights block, by median decode, confirmed rows first), borrowed; NULL
 * when none. */
const json_t *mhw_fastest(const json_t *m);

/* page_model_hw_beyond.c: adds to p->m "predicted" (the backends without
 * a measured row here that the evidence predicts, by name), "versions"
 * (median decode by backend version, with a chart for pages) and, when
 * nothing was measured, "command" and the visit counted for /wanted
 * (else command null).  0, or -1 with p->b's failure set. */
int mhw_add_beyond(struct mhw *p);

#endif
