/* page_describe.c: each page's one-paragraph description, as search
 * engines and link previews show it (<meta name="description">,
 * og:description), written from the page's own view model: the figures
 * of that run, model or hardware, the counts of a list.  Plain text; the
 * caller escapes it (page_meta.c, html_attr). */
#include "pages/page.h"

#include <math.h>
#include <string.h>

#include "pages/browse.h"
#include "util/buf.h"
#include "util/numfmt.h"
#include "util/nelem.h"

/* The descriptions stay near what search results show (about 160
 * characters); a long name may take them past it, never mid-character
 * (textcut is not used: the names are whole on purpose). */

/* m[k] as a string, or NULL. */
static const char *str(const json_t *m, const char *k)
{
	return json_string_value(json_object_get(m, k));
}

/* m[k] as a number (integer or real), or NAN. */
static double num(const json_t *m, const char *k)
{
	const json_t *v = json_object_get(m, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* m[a][b] as a string, or NULL. */
static const char *str2(const json_t *m, const char *a, const char *b)
{
	return str(json_object_get(m, a), b);
}

/* Appends " <figure> <unit>" when v is a finite figure. */
static void fig(struct buf *d, double v, const char *unit)
{
	if (!isfinite(v))
		return;
	numfmt_fig(d, v);
	buf_printf(d, " %s", unit);
}

/* Appends a combination row's typical figures: "median 131.2 tok/s
 * decode over 14 submitters" (one submitter said so). */
static void typical(struct buf *d, const json_t *row)
{
	double keys = num(row, "keys");

	buf_puts(d, "median ");
	fig(d, num(row, "median_decode_tok_s"), "tok/s decode");
	if (isfinite(keys) && keys >= 1) {
		buf_puts(d, " over ");
		numfmt_count(d, (long long)keys, "submitter", "submitters");
	}
}

/* The row of rows with the highest median decode that may lead (a
 * confirmed one: the first page's rows may be in another order under
 * ?sort=), or NULL. */
static const json_t *fastest(const json_t *rows)
{
	const json_t *best = NULL, *row;
	size_t i;

	json_array_foreach(rows, i, row)
		if (isfinite(num(row, "median_decode_tok_s")) && combos_may_lead(row) &&
		    (!best || num(row, "median_decode_tok_s") > num(best, "median_decode_tok_s")))
			best = row;
	return best;
}

/* "<model> (<quant>) on <hardware> with <backend>" of a combination row;
 * parts the page already names (skip_model, skip_hw) are left out. */
static void combo_names(struct buf *d, const json_t *row, int skip_model, int skip_hw)
{
	const char *q = str2(row, "model", "quantization");

	if (!skip_model)
		buf_printf(d, "%s%s%s%s", str2(row, "model", "name") ? str2(row, "model", "name") : "?",
			   q ? " (" : "", q ? q : "", q ? ")" : "");
	else if (q)
		buf_printf(d, "%s", q);
	if (!skip_hw)
		buf_printf(d, " on %s", str2(row, "hardware", "name") ? str2(row, "hardware", "name") : "?");
	if (str(row, "backend"))
		buf_printf(d, " with %s", str(row, "backend"));
}

/* /r/<id>: the run's model, weights, hardware, backend and its figures. */
static void describe_run(struct buf *d, const json_t *m)
{
	const json_t *cs = json_object_get(json_object_get(json_object_get(m, "payload"),
							   "workloads"), "chat-short");
	const json_t *comb = json_object_get(json_object_get(m, "outlier"), "combination");
	const char *status = str(m, "status"), *q = str2(m, "model", "quantization");
	const char *ver = str2(m, "backend", "version"), *at = str(m, "created_at");

	buf_printf(d, "%s%s%s on %s with %s%s%s: ", str2(m, "model", "name") ? str2(m, "model", "name") : "?",
		   q ? " " : "", q ? q : "",
		   str2(m, "hardware", "accelerator_summary") ? str2(m, "hardware", "accelerator_summary") : "?",
		   str2(m, "backend", "name") ? str2(m, "backend", "name") : "?", ver ? " " : "", ver ? ver : "");
	if (json_is_object(json_object_get(m, "withdrawal"))) {
		buf_puts(d, "a run its submitter withdrew.");
		return;
	}
	if (status && !strcmp(status, "upheld")) {
		buf_puts(d, "a run whose dispute was upheld, so its figures are not counted.");
		return;
	}
	fig(d, num(m, "decode_tok_s"), "tok/s decode");
	if (isfinite(num(cs, "prefill_tok_s"))) {
		buf_puts(d, ", ");
		fig(d, num(cs, "prefill_tok_s"), "tok/s prefill");
	}
	if (isfinite(num(cs, "ttft_ms"))) {
		buf_puts(d, ", ");
		fig(d, num(cs, "ttft_ms"), "ms to first token");
	}
	buf_puts(d, " (chat-short)");
	if (at) {
		buf_puts(d, ", a signed run of ");
		numfmt_date(d, at, strlen(at));
	}
	buf_puts(d, ".");
	if (json_is_true(json_object_get(json_object_get(m, "outlier"), "flagged")))
		buf_puts(d, " Flagged as an outlier.");
	if (isfinite(num(comb, "mean")) && num(comb, "runs") > 1) {
		buf_puts(d, " Its combination: ");
		numfmt_count(d, (long long)num(comb, "runs"), "run", "runs");
		buf_puts(d, " by ");
		numfmt_count(d, (long long)num(comb, "keys"), "submitter", "submitters");
		buf_puts(d, ", mean ");
		fig(d, num(comb, "mean"), "tok/s.");
	}
}

/* With no row that may lead: n rows awaiting confirmation, or none. */
static void awaiting(struct buf *d, size_t n)
{
	if (!n) {
		buf_puts(d, "No runs counted yet.");
		return;
	}
	numfmt_count(d, (long long)n, "combination", "combinations");
	buf_printf(d, " awaiting confirmation (%s), so none is called fastest yet.",
		   combos_confirm_text());
}

/* /m/<slug> and /hw/<slug>: how many combinations, and the fastest. */
static void describe_subject(struct buf *d, const json_t *m, int is_model)
{
	const json_t *combos = json_object_get(m, "combos");
	const json_t *rows = json_object_get(combos, "rows"), *top = fastest(rows);
	double count = num(combos, "count");
	const char *suite = str(m, "suite_version");

	buf_printf(d, "%s: typical decode speeds ", str(m, "title") ? str(m, "title") : "?");
	buf_puts(d, is_model ? "on each machine and backend" : "of each model and backend on it");
	buf_printf(d, ", measured by signed runs%s%s. ", suite ? " of " : "", suite ? suite : "");
	if (!top) {
		awaiting(d, json_array_size(rows));
		return;
	}
	if (isfinite(count) && count > 1) {
		numfmt_count(d, (long long)count, "combination", "combinations");
		buf_puts(d, "; fastest: ");
	} else
		buf_puts(d, "Typical: ");
	combo_names(d, top, is_model, !is_model);
	buf_puts(d, ", ");
	typical(d, top);
	buf_puts(d, ".");
}

/* /m/<model>/hw/<hw>: how many weights files and backends were measured
 * there, and the fastest with its typical and best figures. */
static void describe_model_hw(struct buf *d, const json_t *m)
{
	const json_t *w, *row, *top = NULL;
	const char *suite = str(m, "suite_version"), *q;
	size_t i, j, n = 0;

	json_array_foreach(json_object_get(m, "weights"), i, w)
		json_array_foreach(json_object_get(w, "rows"), j, row) {
			n++;
			if (isfinite(num(row, "median_decode_tok_s")) && combos_may_lead(row) &&
			    (!top || num(row, "median_decode_tok_s") > num(top, "median_decode_tok_s")))
				top = row;
		}
	buf_printf(d, "%s on %s: typical decode speeds of each weights file and backend, measured by signed runs%s%s. ",
		   str2(m, "model", "name") ? str2(m, "model", "name") : "?",
		   str2(m, "hardware", "name") ? str2(m, "hardware", "name") : "?",
		   suite ? " of " : "", suite ? suite : "");
	if (!top) {
		awaiting(d, n);
		return;
	}
	if (n > 1) {
		numfmt_count(d, (long long)n, "combination", "combinations");
		buf_puts(d, "; fastest: ");
	} else
		buf_puts(d, "Typical: ");
	q = str(top, "quantization");
	buf_printf(d, "%s%s%s%s", q ? q : "", q && str(top, "backend") ? " " : "",
		   str(top, "backend") ? "with " : "", str(top, "backend") ? str(top, "backend") : "");
	buf_puts(d, ", ");
	typical(d, top);
	if (isfinite(num(top, "best_decode_tok_s"))) {
		buf_puts(d, ", best ");
		fig(d, num(top, "best_decode_tok_s"), "tok/s");
	}
	if (isfinite(num(top, "median_prefill_tok_s"))) {
		buf_puts(d, ", prefill ");
		fig(d, num(top, "median_prefill_tok_s"), "tok/s");
	}
	buf_puts(d, ".");
}

static void describe_model(struct buf *d, const json_t *m) { describe_subject(d, m, 1); }
static void describe_hw(struct buf *d, const json_t *m) { describe_subject(d, m, 0); }

/* /: the board's size and its leader. */
static void describe_home(struct buf *d, const json_t *m)
{
	const json_t *top = fastest(json_object_get(json_object_get(m, "board"), "rows"));

	buf_puts(d, "How fast language models run on people's own machines: signed, measured decode speeds of each model, hardware and backend");
	if (str(m, "suite_version"))
		buf_printf(d, " in %s", str(m, "suite_version"));
	buf_puts(d, ".");
	if (top) {
		buf_puts(d, " Fastest now: ");
		combo_names(d, top, 0, 0);
		buf_puts(d, ", ");
		typical(d, top);
		buf_puts(d, ".");
	}
}

/* /models, /hardware: how many, and the leader. */
static void describe_catalog(struct buf *d, const json_t *m)
{
	int models = json_is_true(json_object_get(m, "is_models"));
	const json_t *rows = json_object_get(m, "rows"), *top = json_array_get(rows, 0);
	double count = num(m, "count");

	buf_puts(d, "Every ");
	buf_puts(d, models ? "model" : "machine");
	buf_puts(d, " measured on llm-speed");
	if (isfinite(count)) {
		buf_puts(d, " (");
		numfmt_count(d, (long long)count, models ? "model" : "hardware name",
			     models ? "models" : "hardware names");
		buf_puts(d, ")");
	}
	buf_puts(d, models ? ", with the machine each runs fastest on"
			   : ", with the model each runs fastest");
	buf_puts(d, " and its typical decode tok/s.");
	if (top && str(top, "name") && isfinite(num(top, "median_decode_tok_s"))) {
		buf_printf(d, " First: %s, median ", str(top, "name"));
		fig(d, num(top, "median_decode_tok_s"), "tok/s decode.");
	}
}

/* /cheatsheet: its grid and the memory class picked. */
static void describe_cheatsheet(struct buf *d, const json_t *m)
{
	buf_puts(d, "Which backend runs each model fastest on each machine");
	if (str(m, "memory_label"))
		buf_printf(d, " with %s of memory", str(m, "memory_label"));
	buf_puts(d, ": typical decode tok/s of ");
	numfmt_count(d, (long long)json_array_size(json_object_get(m, "rows")), "model", "models");
	buf_puts(d, " on ");
	numfmt_count(d, (long long)json_array_size(json_object_get(m, "hardware")), "machine", "machines");
	buf_puts(d, ", from signed runs, the fastest marked in each cell.");
}

/* The name of the selected option of /fit's list list ("formats"), or
 * NULL. */
static const char *chosen(const json_t *m, const char *list)
{
	const json_t *o;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(m, "options"), list), i, o)
		if (json_is_true(json_object_get(o, "selected")))
			return str(o, "name");
	return NULL;
}

/* /fit: the answer when hardware was picked, else what the tool does. */
static void describe_fit(struct buf *d, const json_t *m)
{
	const json_t *res = json_object_get(m, "result"), *txt = json_object_get(res, "text");
	const char *hw = str(m, "hardware_name");
	const char *mem = str(json_object_get(json_object_get(m, "inputs"), "text"), "memory_gb");

	if (!hw || !json_is_true(json_object_get(res, "memory_known"))) {
		buf_puts(d, "Will a language model fit in your GPU's or Mac's memory, and how fast can its decode go at most? Weights, KV cache and overhead in GB, and the memory-bandwidth ceiling in tok/s, beside what was measured.");
		return;
	}
	buf_printf(d, "%s (%s weights, %s cache, ", str2(m, "model", "name") ? str2(m, "model", "name") : "?",
		   chosen(m, "formats") ? chosen(m, "formats") : "?",
		   chosen(m, "kv_types") ? chosen(m, "kv_types") : "?");
	numfmt_int(d, num(json_object_get(m, "inputs"), "context"));
	buf_printf(d, " tokens of context) on %s: %s, %s GB of %s GB", hw,
		   json_is_true(json_object_get(res, "fits")) ? "fits" : "does not fit",
		   str(txt, "total_gb") ? str(txt, "total_gb") : "?", mem ? mem : "?");
	if (str(txt, "ceiling_tok_s"))
		buf_printf(d, "; decode ceiling %s tok/s per stream", str(txt, "ceiling_tok_s"));
	buf_puts(d, ".");
}

/* A page whose description is fixed. */
struct fixed {
	const char *name, *text;
};

static const struct fixed fixed[] = {
	{ "glossary", "What the words on llm-speed mean: decode and prefill tok/s, time to first token, the five workloads, quantization formats such as Q4_K_M, the KV cache, signatures and fingerprints, and common questions answered." },
	{ "methodology", "How llm-speed measures and checks decode speed: the five workloads of the suite, how figures are computed, how runs are signed and logged, how outliers are flagged and typical figures taken over submitters." },
	{ "privacy", "What llm-speed stores about a run and its submitter, what it publishes, what the access log records and how long it is kept, and how to report a problem." },
	{ "explain_quantization", "Quantization explained with figures: how many bytes a model's weights and KV cache take in each format, and the memory-bandwidth ceiling on decode tok/s that follows." },
	{ "api", "The llm-speed API: uploading signed benchmark runs, the JSON and CSV twin of every page, Atom feeds, the full export and the transparency log, with every route, status and field." },
	{ "log", "llm-speed's public append-only transparency log: every accepted run, dispute post and ruling as a Merkle tree with signed checkpoints, so anyone can check nothing was changed or removed." },
	{ "outliers", "Runs llm-speed flags as outliers: decode speeds far from the other submitters' runs of the same model, hardware and backend, or above the memory-bandwidth ceiling." },
	{ "disputes", "Public dispute threads about llm-speed runs: who questioned a figure, the submitter's signed replies and the moderators' rulings." },
	{ "compare", "Compare two to four llm-speed runs side by side: decode, prefill and time to first token on every workload, and what differs between them." },
	{ "search", "Search llm-speed for a model, hardware, backend or run id, and find its measured decode speeds." },
	{ "account", "The runs one account uploaded to llm-speed, with their decode speeds." },
	{ "error", "This page could not be shown." },
};

/* A page whose description its view model writes. */
struct builder {
	const char *name;
	void (*fn)(struct buf *d, const json_t *m);
};

static const struct builder builders[] = {
	{ "run", describe_run },
	{ "model", describe_model },
	{ "hw", describe_hw },
	{ "model_hw", describe_model_hw },
	{ "home", describe_home },
	{ "models", describe_catalog },
	{ "hardware", describe_catalog },
	{ "cheatsheet", describe_cheatsheet },
	{ "fit", describe_fit },
};

/* See page.h. */
void page_describe(struct buf *d, const char *name, const json_t *m)
{
	size_t i;

	for (i = 0; i < NELEM(builders); i++)
		if (!strcmp(name, builders[i].name)) {
			builders[i].fn(d, m);
			return;
		}
	for (i = 0; i < NELEM(fixed); i++)
		if (!strcmp(name, fixed[i].name)) {
			buf_puts(d, fixed[i].text);
			return;
		}
	/* A page kind with none of its own yet: its title and what the site is. */
	buf_printf(d, "%s on llm-speed: signed, measured decode speeds of language models on people's own machines.",
		   str(m, "title") ? str(m, "title") : "A page");
}
