/* scope.h: the scopes of a write, so the kept list pages it does not
 * touch stay fresh (http/cache.h, cache_bump_scopes).  A model's page
 * (/m/<slug>) is kept with the scope tag of its model, a hardware's page
 * (/hw/<slug>) with that of its hardware; an upload of one model on one
 * hardware, and the refresh round that follows it, name those two tags.
 * Every other kept list page (the board, the lists, model-on-hardware
 * pages, cards) follows every write, as before. */
#ifndef LLMS_SCOPE_H
#define LLMS_SCOPE_H

/* The tag the prediction snapshot's rebuild bumps: kept on the pages of
 * models the reference data knows, the only model pages that show
 * predictions. */
#define SCOPE_PREDICTED 1u

/* The scope tag (never 0 nor SCOPE_PREDICTED) of the pages of a model
 * (kind 'm') or a hardware (kind 'h') named by slug. */
unsigned scope_tag(char kind, const char *slug);

/* The scopes a round of writes touched: at most SCOPE_SET_MAX tags, or
 * over set when more were named (the writes then touch every page). */
#define SCOPE_SET_MAX 64
struct scope_set {
	unsigned t[SCOPE_SET_MAX];
	int n;
	int over;
};

/* Adds tag to s once (0 is ignored); past SCOPE_SET_MAX, sets s->over. */
void scope_add(struct scope_set *s, unsigned tag);

#endif
