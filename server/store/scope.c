/* scope.c: scope tags and sets (scope.h). */
#include "store/scope.h"

#include <stdint.h>

unsigned scope_tag(char kind, const char *slug)
{
	uint32_t h = 2166136261u;   /* FNV-1a over the kind and the slug */
	const char *p;

	h = (h ^ (unsigned char)kind) * 16777619u;
	h = (h ^ 0xff) * 16777619u;
	for (p = slug ? slug : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	return h ? h : 1;
}

void scope_add(struct scope_set *s, unsigned tag)
{
	int i;

	if (!tag || s->over)
		return;
	for (i = 0; i < s->n; i++)
		if (s->t[i] == tag)
			return;
	if (s->n == SCOPE_SET_MAX)
		s->over = 1;
	else
		s->t[s->n++] = tag;
}
