/* page_model_hw_beyond.c: what the model-on-hardware page shows beyond its
 * measured rows (issue 26): predicted decode for the backends nobody
 * measured here, the visit counted for /wanted when nothing was
 * measured, and median decode by backend version per backend.
 *
 * A prediction never sits in a measured row or column and is never
 * ranked: "predicted" is its own list, by backend name, each labelled
 * with its basis (store/forecast.h).  The version series come from
 * the per-version figures the writer keeps (store/versions.h). */
#include "pages/page.h"

#include <string.h>

#include "app.h"
#include "ingest/validate.h"
#include "pages/page_model_hw.h"
#include "domain/ceiling.h"
#include "render/barchart.h"
#include "store/forecast.h"
#include "store/versions.h"
#include "store/wanted.h"
#include "util/buf.h"
#include "util/numfmt.h"

/* 1 when a backend has a measured row on the page. */
static int measured(const json_t *m, const char *backend)
{
	const json_t *w, *row;
	size_t i, k;

	json_array_foreach(json_object_get(m, "weights"), i, w)
		json_array_foreach(json_object_get(w, "rows"), k, row)
			if (!strcmp(json_string_value(json_object_get(row, "backend")), backend))
				return 1;
	return 0;
}

/* Says on row when r's figure is above the fastest backend measured on
 * the page (fastest, may be NULL): "above_measured" (false, or that
 * row's {backend, median_decode_tok_s}). */
static void above_measured(json_t *row, const struct predict_result *r, const json_t *fastest)
{
	double med = json_number_value(json_object_get(fastest, "median_decode_tok_s"));

	json_object_set_new(row, "above_measured", fastest && med > 0 && r->tok_s > med ?
		json_pack("{s:O, s:f, s:o}", "backend", json_object_get(fastest, "backend"),
			  "median_decode_tok_s", med, "text", ceiling_fmt3_json(med)) :
		json_false());
}

/* "predicted": every known backend without a measured row here that the
 * evidence can predict, by name, each {backend, the prediction's fields
 * (store/forecast.h), above_measured}; none for a backend that cannot
 * run here or where the model does not fit.  0, or -1 on a database
 * error. */
static int add_predicted(struct mhw *p)
{
	const char *const *be;
	json_t *list = json_array();
	char quant[128];
	int known = forecast_model_known(p->model);

	/* The model's quantization is read once for all backends; a model the
	 * reference data does not know has no prediction with any. */
	if (known && p->fits != 0 && forecast_quant(p->b.c, p->b.suite, p->model, quant, sizeof quant) < 0) {
		json_decref(list);
		return -1;
	}
	/* Nothing is predicted as a speed it runs at where it does not fit. */
	for (be = validate_backends; known && p->fits != 0 && *be; be++) {
		struct predict_result r;
		json_t *row;

		if (measured(p->m, *be))
			continue;
		forecast_for_combo_quant(p->b.suite, p->model, p->hw, *be, quant, &r);
		if (r.step == PREDICT_NONE)
			continue;
		row = json_pack("{s:s}", "backend", *be);
		if (!row || forecast_json_fields(row, &r) < 0) {
			json_decref(row);
			json_decref(list);
			return -1;
		}
		above_measured(row, &r, mhw_fastest(p->m));
		if (p->b.html)
			json_object_set_new(row, "text", forecast_text_json(&r));
		json_array_append_new(list, row);
	}
	json_object_set_new(p->m, "has_predicted", json_boolean(json_array_size(list) > 0));
	json_object_set_new(p->m, "predicted", list);
	return 0;
}

/* The version series, and for pages one bar chart per series (a bar per
 * version, oldest first, its median) beside the table of its spread and
 * submitters. */
static int add_versions(struct mhw *p)
{
	json_t *series = versions_series(p->b.c, p->b.suite, p->model, p->hw), *s, *pt;
	size_t i, k;

	if (!series)
		return -1;
	json_array_foreach(series, i, s) {
		struct barchart_bar bars[BARCHART_MAX_BARS];
		struct buf svg = BUF_INIT, title = BUF_INIT;
		const char *d = json_string_value(json_object_get(s, "digest"));
		char shrt[BROWSE_DIGEST_SHORT];
		size_t n = 0;

		json_array_foreach(json_object_get(s, "points"), k, pt) {
			if (n == BARCHART_MAX_BARS)
				break;
			bars[n].label = json_string_value(json_object_get(pt, "version"));
			bars[n].sub = NULL;
			bars[n++].value = json_number_value(json_object_get(pt, "median_decode_tok_s"));
			if (p->b.html)
				json_object_set_new(pt, "text", json_pack("{s:o, s:o, s:o, s:o}",
					"median", browse_fig(json_number_value(json_object_get(pt, "median_decode_tok_s"))),
					"p25", browse_fig(json_number_value(json_object_get(pt, "p25_decode_tok_s"))),
					"p75", browse_fig(json_number_value(json_object_get(pt, "p75_decode_tok_s"))),
					"keys", json_integer(json_integer_value(json_object_get(pt, "keys")))));
		}
		browse_digest_short(p->b.c, p->b.suite, d, shrt);
		json_object_set_new(s, "digest_short", json_string(shrt));
		if (!p->b.html)
			continue;
		buf_printf(&title, "Median chat-short decode tok/s by %s version",
			   json_string_value(json_object_get(s, "backend")));
		if (!buf_error(&title) && barchart_svg(&svg, title.buf, "tok/s", bars, n) == 0)
			json_object_set_new(s, "svg", json_stringn(svg.buf, svg.len));
		json_object_set_new(s, "title", json_string(buf_error(&title) ? "" : title.buf));
		buf_release(&svg);
		buf_release(&title);
	}
	json_object_set_new(p->m, "versions", series);
	json_object_set_new(p->m, "has_versions", json_boolean(json_array_size(series) > 0));
	return 0;
}

int mhw_add_beyond(struct mhw *p)
{
	struct buf cmd = BUF_INIT;
	int rc = 0;

	if (add_predicted(p) < 0 || add_versions(p) < 0)
		return browse_error(&p->b, 503, MSG_DB_DOWN);
	if (p->nrows) {
		json_object_set_new(p->m, "command", json_null());
		return 0;
	}
	/* Nothing measured: the visit asks for it (/wanted), and the command
	 * that would measure it. */
	wanted_note(p->b.r->client, p->b.suite, p->model, p->hw);
	if (page_wanted_command(p->b.c, p->b.r->app->ref, p->model,
				json_string_value(json_object_get(json_object_get(p->m, "model"), "name")),
				p->hw, &cmd) < 0)
		rc = browse_error(&p->b, 503, MSG_DB_DOWN);
	else
		json_object_set_new(p->m, "command", json_string(cmd.buf));
	buf_release(&cmd);
	return rc;
}
