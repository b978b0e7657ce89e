/* predict_ref.c: what the reference data says of a prediction (predict.h):
 * the ceiling, class and kin of a combination, whether its backend runs
 * there and whether its weights fit. */
#include "domain/predict.h"

#include <stdio.h>
#include <string.h>

#include "domain/ceiling.h"

int predict_where(const struct ceiling_ref *ref, const char *model_slug, const char *quant,
		  const char *hw_slug, const char *backend, struct predict_where *out)
{
	struct ceiling_run cr;
	struct ceiling_fit fit;

	memset(out, 0, sizeof *out);
	out->cls = -1;
	if (!ref || !model_slug || !hw_slug ||
	    ceiling_of_run(ref, model_slug, quant, hw_slug, CEILING_CHAT_SHORT_CONTEXT, &cr) < 0)
		return -1;
	out->m = cr.m;
	out->hw = cr.hw;
	out->ceiling = cr.step.tok_s;
	out->peak = cr.peak_tok_s;
	out->cls = predict_class(CEILING_MOE(cr.m), cr.bits);
	out->kin = predict_kin(cr.hw->vendor, cr.hw->cpu);
	snprintf(out->format, sizeof out->format, "%s", cr.format_name);
	if (ceiling_fit(ref, cr.m, cr.f, cr.hw, 0, CEILING_CHAT_SHORT_CONTEXT,
			CEILING_FIT_OVERHEAD_GB, &fit) == 0) {
		out->need_gb = fit.need_gb;
		out->have_gb = fit.have_gb;
		if (!fit.fits)
			out->refusal = PREDICT_NO_FIT;
	}
	if (backend && ceiling_backend_runs(ref, backend, cr.hw) == 0)
		out->refusal = PREDICT_CANNOT_RUN;
	return 0;
}

int predict_row(const struct ceiling_ref *ref, const char *model_slug, const char *quant,
		const char *hw_slug, const char *backend, double median, int keys, long long runs,
		struct predict_combo *row)
{
	struct predict_where w;

	if (predict_where(ref, model_slug, quant, hw_slug, backend, &w) < 0 || w.refusal != PREDICT_OK ||
	    !(median <= w.peak))
		return -1;
	*row = (struct predict_combo){ w.m->id, w.hw->slug, w.kin, backend, w.cls, median,
				       w.ceiling, keys, runs };
	return 0;
}
