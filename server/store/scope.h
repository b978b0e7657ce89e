/* scope.h: the scopes of a write, so the kept list pages it does not
 * touch stay fresh (http/cache.h, cache_bump_scopes).  A model's page
 * (/m/<slug>) is kept with the scope tags of its model and of the weights
 * file (digest) it lists runs of, a hardware's page (/hw/<slug>) with that
 * of its hardware; an upload names its model's, its hardware's and its
 * digest's (a digest's runs under another model's name share its
 * outlier clusters, whose figures the run lists show), the refresh round
 * that follows names the models and hardware of the versions it
 * recomputed, and a new prediction snapshot every model the reference
 * data knows (the only model pages that show predictions).  Every other
 * kept list page (the board, the lists, model-on-hardware pages, cards)
 * follows every write, as before. */
#ifndef LLMS_SCOPE_H
#define LLMS_SCOPE_H

/* The scope tag (never 0) of the pages of a model (kind 'm') or a
 * hardware (kind 'h') named by slug, or of a digest (kind 'd'). */
unsigned scope_tag(char kind, const char *slug);

/* The scopes a round of writes touched: at most SCOPE_SET_MAX tags, or
 * over set when more were named (the writes then touch every page). */
#define SCOPE_SET_MAX 256
struct scope_set {
	unsigned t[SCOPE_SET_MAX];
	int n;
	int over;
};

/* Adds tag to s once (0 is ignored); past SCOPE_SET_MAX, sets s->over. */
void scope_add(struct scope_set *s, unsigned tag);

#endif
