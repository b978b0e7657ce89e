/* page_run_model.c: the view model of a run (what /r/<id>.json serves and the
 * run page renders): its row, its signed payload, the outlier block, the
 * bandwidth ceiling and the dispute thread. */
#include "pages/page.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "disputes/dispute.h"
#include "store/typical.h"
#include "domain/ceiling.h"
#include "store/db.h"
#include "store/netcap.h"
#include "store/outlier.h"
#include "store/run_store.h"
#include "store/jws_pack.h"
#include "util/buf.h"

static const char sql_jws[] = "SELECT jws FROM runs WHERE id = ?";
static const char sql_run[] =
	"SELECT r.id, r.suite_version, r.model_name, r.model_slug, r.model_digest, "
	"r.model_quant, r.model_format, r.accelerator, r.hw_slug, r.fingerprint_hash, "
	"r.hw_class, r.backend_name, r.backend_version, r.decode_tok_s, r.created_at, "
	"r.received_at, r.key_thumbprint, r.alg, a.name AS account, r.demo, r.outlier, "
	"r.status, r.payload, c.n AS cluster_n, c.mean AS cluster_mean, "
	"c.stddev AS cluster_stddev, c.keys AS cluster_keys, c.new_keys AS cluster_new_keys, "
	"r.log_index, w.withdrawn_at, w.reason AS withdrawn_reason, r.flag_bits, "
	"o.runs AS combo_runs, o.keys AS combo_keys, o.mean AS combo_mean, o.stddev AS combo_stddev, "
	"r.hw_bin, r.capped "
	"FROM runs r LEFT JOIN accounts a ON a.id = r.account_id "
	"LEFT JOIN run_withdrawals w ON w.run_id = r.id "
	"LEFT JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name "
	"LEFT JOIN combos o ON o.suite_version = r.suite_version AND o.model_slug = r.model_slug "
	"AND o.model_digest = r.model_digest AND o.hw_slug = r.hw_slug "
	"AND o.backend_name = r.backend_name WHERE r.id = ?";

/* Shorthand: the string member k of row o, or NULL. */
static const char *s_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The outlier block (contract sections 4 and 8): the flag and why
 * ("cluster", or "above_ceiling"), whether any population could check the
 * run, which one flagged it (its combination, which judges every run, or
 * its fingerprint cluster, which judges too once it has OUTLIER_MIN_KEYS
 * keys), both populations' figures (after sigma clipping, over one value
 * per signing key, with how many keys are new) and this run's distance
 * from the deciding one's mean in its standard deviations (null without
 * spread).  A run counted nowhere (withdrawn, upheld, capped) is neither
 * flagged nor checked. */
/* The run's status, "counted" and "not_counted": why it counts nowhere,
 * in words (contract sections 4 and 5). */
static void counted_json(json_t *m, const json_t *row)
{
	const char *status = s_of(row, "status");
	int capped = json_integer_value(json_object_get(row, "capped")) != 0;
	char text[400];
	const char *why = NULL;

	if (json_is_object(json_object_get(m, "withdrawal"))) {
		status = "withdrawn";
		why = "withdrawn";
		snprintf(text, sizeof text, "Its submitter withdrew it, so it counts in no figure.");
	} else if (capped) {
		status = "capped";
		why = "network_cap";
		snprintf(text, sizeof text, "Its signing key did not count: when it arrived, %u other keys "
			 "from the same network (an IPv4 /24 or IPv6 /48) had already sent runs of this "
			 "weights file on this hardware with this backend, and a network counts only the "
			 "first %u keys it brings. The run is stored and signed as ever; it is left out of "
			 "every figure, flag and name.", netcap_keys(), netcap_keys());
	} else if (status && !strcmp(status, "upheld")) {
		why = "upheld";
		snprintf(text, sizeof text, "A moderator upheld a dispute against it, so it counts in "
			 "no figure.");
	}
	json_object_set_new(m, "status", json_string(status ? status : "ok"));
	json_object_set_new(m, "counted", json_boolean(!why));
	json_object_set_new(m, "not_counted", why ? json_pack("{s:s, s:s}", "why", why, "reason", text)
					     : json_null());
}

static json_t *outlier_json(const json_t *row)
{
	double x = json_number_value(json_object_get(row, "decode_tok_s"));
	json_t *n = json_object_get(row, "cluster_n"), *wn = json_object_get(row, "combo_runs");
	long long ckeys = json_integer_value(json_object_get(row, "cluster_keys"));
	long long wkeys = json_integer_value(json_object_get(row, "combo_keys"));
	long long bits = json_integer_value(json_object_get(row, "flag_bits"));
	int flagged = json_integer_value(json_object_get(row, "outlier")) != 0;
	int cluster_judges = json_is_integer(n) && ckeys >= OUTLIER_MIN_KEYS;
	/* The cluster decides when it judges and flags the run, or judges
	 * with more keys than the combination has. */
	int by_cluster = cluster_judges && outlier_by_cluster(ckeys, wkeys, bits);
	int counted = s_of(row, "status") && !strcmp(s_of(row, "status"), "ok");
	double mean = json_number_value(json_object_get(row, by_cluster ? "cluster_mean" : "combo_mean"));
	double sd = json_number_value(json_object_get(row, by_cluster ? "cluster_stddev" : "combo_stddev"));
	long long judging = by_cluster ? ckeys : wkeys;
	char judges[64];
	json_t *o;

	o = json_pack("{s:b, s:b, s:s?, s:s, s:i, s:i}", "flagged", flagged,
		"checked", counted && (flagged || wkeys >= OUTLIER_MIN_KEYS || cluster_judges),
		"reason", !flagged ? NULL : bits & 4 ? "above_ceiling" : "cluster",
		"decided_by", by_cluster ? "cluster" : "combination",
		"needs_keys", OUTLIER_MIN_KEYS, "judging_keys", (int)judging);
	if (json_is_integer(n))
		json_object_set_new(o, "cluster", json_pack("{s:O, s:f, s:f, s:O, s:O}",
			"n", n, "mean", json_number_value(json_object_get(row, "cluster_mean")),
			"stddev", json_number_value(json_object_get(row, "cluster_stddev")),
			"keys", json_object_get(row, "cluster_keys"),
			"new_keys", json_object_get(row, "cluster_new_keys")));
	else
		json_object_set_new(o, "cluster", json_null());
	if (json_is_integer(wn))
		json_object_set_new(o, "combination", json_pack("{s:O, s:O, s:f, s:f}",
			"runs", wn, "keys", json_object_get(row, "combo_keys"),
			"mean", json_number_value(json_object_get(row, "combo_mean")),
			"stddev", json_number_value(json_object_get(row, "combo_stddev"))));
	else
		json_object_set_new(o, "combination", json_null());
	json_object_set_new(o, "sigma", counted && sd > 0 && (json_is_integer(n) || json_is_integer(wn))
			    ? json_real((x - mean) / sd) : json_null());
	json_object_set_new(o, "hw_class", json_string(s_of(row, "hw_class")));
	snprintf(judges, sizeof judges, "/r/%s/judges", s_of(row, "id"));
	json_object_set_new(o, "judges_url", json_string(judges));
	return o;
}

/* The run's decode beside the bandwidth ceiling of its model, weights
 * and hardware at its chat-short context (prompt plus output tokens), with
 * the arithmetic: exact when the run names a quantization the reference
 * data knows, else the range of its weights format (GGUF: Q4_K_M to
 * Q8_0); null when the reference data lacks the model or the hardware. */
static json_t *ceiling_json(struct req *r, const json_t *m, const json_t *payload)
{
	const json_t *w1 = json_object_get(json_object_get(payload, "workloads"), "chat-short");
	json_t *p = json_object_get(w1, "prompt_tokens"), *o = json_object_get(w1, "output_tokens");
	double ctx = json_is_number(p) && json_is_number(o)
		? json_number_value(p) + json_number_value(o) : CEILING_CHAT_SHORT_CONTEXT;
	const json_t *model = json_object_get(m, "model");
	const json_t *hw = json_object_get(m, "hardware");
	struct ceiling_range c;
	json_t *v;

	if (ceiling_range_of_run_bin(r->app->ref, s_of(model, "slug"), s_of(model, "quantization"),
				     s_of(model, "format"), s_of(hw, "slug"),
				     (int)json_integer_value(json_object_get(hw, "bin_index")), ctx, &c) < 0)
		return json_null();
	v = ceiling_range_json(&c, json_number_value(json_object_get(m, "decode_tok_s")));
	return v ? v : json_null();
}

/* The signed payload of run id, decoded from its stored JWS (runs stored
 * since migration 0006 keep the payload only there); NULL when it cannot
 * be read. */
static json_t *payload_from_jws(struct req *r, const char *id)
{
	struct dbconn *c = db_reader(r->app->db);
	sqlite3_stmt *st = c ? db_stmt(c, sql_jws) : NULL;
	unsigned char *bin = NULL;
	size_t got;
	json_t *v = NULL;

	if (!st)
		return NULL;
	db_bind_text(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    jws_stored_payload(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
			       &bin, &got) == 0)
		v = json_loadb((const char *)bin, got, JSON_DECODE_ANY, NULL);
	sqlite3_reset(st);
	free(bin);
	return v;
}

/* The run's withdrawal by its submitter (migration 0013): when and why,
 * or null. */
static json_t *withdrawal_json(const json_t *row)
{
	json_t *at = json_object_get(row, "withdrawn_at");

	if (!json_is_string(at))
		return json_null();
	return json_pack("{s:O, s:O}", "withdrawn_at", at,
			 "reason", json_object_get(row, "withdrawn_reason"));
}

/* The model block: the name as uploaded (the payload's), the page's slug
 * and shown name, the reference id it resolved to (null: none), the
 * digest (read_as: the shown name when the name resolved and is spelt
 * otherwise, else null), the canonical quantization (contract section 9) beside the label
 * as uploaded when that is spelt otherwise (null when the same or none),
 * and the weights format. */
static json_t *model_json(struct req *r, const json_t *row, const json_t *payload)
{
	const json_t *pm = json_object_get(payload, "model");
	const char *slug = s_of(row, "model_slug");
	const json_t *name = json_object_get(pm, "name");
	const char *sent = json_string_value(json_object_get(pm, "quantization"));
	const char *canon = s_of(row, "model_quant");

	const char *sent_name = json_is_string(name) ? json_string_value(name) : s_of(row, "model_name");

	return json_pack("{s:s, s:o, s:O, s:O, s:o, s:O, s:O, s:o, s:O, s:O}",
		"name", sent_name,
		"read_as", ceiling_model(r->app->ref, slug) && strcmp(sent_name, s_of(row, "model_name")) ?
			json_string(s_of(row, "model_name")) : json_null(),
		"shown_name", json_object_get(row, "model_name"),
		"slug", json_object_get(row, "model_slug"),
		"ref", ceiling_model(r->app->ref, slug) ? json_string(slug) : json_null(),
		"digest", json_object_get(row, "model_digest"),
		"quantization", json_object_get(row, "model_quant"),
		"quantization_uploaded", sent && (!canon || strcmp(sent, canon)) ?
			json_string(sent) : json_null(),
		"format", json_object_get(row, "model_format"),
		"format_uploaded", json_object_get(pm, "format") ? json_object_get(pm, "format") : json_null());
}

/* The hardware block: the payload's hardware members as uploaded, with the
 * page's slug and shown name, the reference id it resolved to (null:
 * none) and its bin (the reference's name of it, null when none or
 * unknown; bin_index for the ceiling). */
static json_t *hardware_json(struct req *r, const json_t *row, const json_t *payload)
{
	json_t *hw = json_deep_copy(json_object_get(payload, "hardware"));
	const char *slug = s_of(row, "hw_slug");
	const struct ceiling_hw *ref = ceiling_hw(r->app->ref, slug);
	json_int_t bin = json_integer_value(json_object_get(row, "hw_bin"));

	if (!json_is_object(hw)) {
		json_decref(hw);
		hw = json_object();
	}
	json_object_set_new(hw, "slug", json_string(slug));
	json_object_set(hw, "name", json_object_get(row, "accelerator"));
	json_object_set_new(hw, "ref", ref ? json_string(slug) : json_null());
	json_object_set_new(hw, "bin", ref && bin > 0 && (size_t)bin <= ref->nbins ?
			    json_string(ref->bins[bin - 1].name) : json_null());
	json_object_set_new(hw, "bin_index", json_integer(ref && (size_t)bin <= ref->nbins ? bin : 0));
	/* How the site read it, when that says more than the upload did: the
	 * bin's name, else the reference's name when it is spelt otherwise. */
	json_object_set_new(hw, "read_as", !ref ? json_null() :
		bin > 0 && (size_t)bin <= ref->nbins ? json_string(ref->bins[bin - 1].name) :
		strcmp(ref->name, s_of(hw, "accelerator_summary") ? s_of(hw, "accelerator_summary") : "") ?
		json_string(ref->name) : json_null());
	return hw;
}

/* Where the run stands among the submitters of its combination (same
 * model, weights file, hardware and backend): typical_place(), or null
 * when nobody counts there or the read fails (the page shows it without). */
static json_t *place_json(struct req *r, const json_t *m)
{
	const json_t *model = json_object_get(m, "model");
	int own = json_is_true(json_object_get(m, "counted")) &&
		  !json_is_true(json_object_get(json_object_get(m, "outlier"), "flagged"));
	struct dbconn *c = db_reader(r->app->db);
	json_t *p = NULL;

	if (!c || typical_place(c, s_of(m, "suite_version"), s_of(model, "slug"), s_of(model, "digest"),
				s_of(json_object_get(m, "hardware"), "slug"),
				s_of(json_object_get(m, "backend"), "name"),
				json_number_value(json_object_get(m, "decode_tok_s")), own, &p) != DB_OK) {
		json_decref(p);
		return json_null();
	}
	return p;
}

/* Turns the database row into the view model; NULL when the dispute
 * thread could not be read (a page without it must not be cached). */
static json_t *model_of(struct req *r, json_t *row)
{
	char origin[300], url[400];
	const char *id = s_of(row, "id");
	json_t *payload, *m, *hw, *thread;

	if (s_of(row, "payload") && *s_of(row, "payload"))
		payload = json_loads(s_of(row, "payload"), JSON_DECODE_ANY, NULL);
	else
		payload = payload_from_jws(r, id);
	if (!payload)
		payload = json_object();
	hw = hardware_json(r, row, payload);
	http_origin(r, origin, sizeof origin);
	snprintf(url, sizeof url, "%s/r/%s", origin, id);
	m = json_pack("{s:s, s:s, s:s+, s:s+++, s:s, s:s, s:s, s:O}",
		"id", id, "url", url,
		"jws_url", url, ".jws",
		"badge_url", origin, "/badge/", id, ".svg",
		"suite_version", s_of(row, "suite_version"),
		"created_at", s_of(row, "created_at"),
		"received_at", s_of(row, "received_at"),
		"decode_tok_s", json_object_get(row, "decode_tok_s"));
	json_object_set_new(m, "model", model_json(r, row, payload));
	json_object_set_new(m, "hardware", hw);
	json_object_set_new(m, "backend", json_pack("{s:O, s:O}",
		"name", json_object_get(row, "backend_name"),
		"version", json_object_get(row, "backend_version")));
	json_object_set_new(m, "signing", json_pack("{s:O, s:O}",
		"alg", json_object_get(row, "alg"),
		"thumbprint", json_object_get(row, "key_thumbprint")));
	json_object_set(m, "account", json_object_get(row, "account"));
	json_object_set_new(m, "demo", json_boolean(json_integer_value(json_object_get(row, "demo"))));
	json_object_set_new(m, "withdrawal", withdrawal_json(row));
	counted_json(m, row);
	json_object_set_new(m, "outlier", outlier_json(row));
	json_object_set_new(m, "place", place_json(r, m));
	/* The run's entry in the transparency log (null: a row the log lacks). */
	if (json_is_integer(json_object_get(row, "log_index")))
		json_object_set_new(m, "log", json_pack("{s:O}", "index",
							 json_object_get(row, "log_index")));
	else
		json_object_set_new(m, "log", json_null());
	if (!(thread = dispute_thread_json(r, id)) ||
	    json_object_set_new(m, "dispute", thread) < 0) {
		json_decref(payload);
		json_decref(m);
		return NULL;
	}
	json_object_set_new(m, "ceiling", ceiling_json(r, m, payload));
	json_object_set_new(m, "payload", payload);
	return m;
}

json_t *page_run_model(struct req *r, const char *id, struct err *e)
{
	struct dbconn *c;
	sqlite3_stmt *st;
	json_t *row, *m;
	int rc;

	if (!run_id_valid(id))
		goto not_found;
	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_run)))
		goto down;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	row = rc == SQLITE_ROW ? db_row_json(st) : NULL;
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		goto not_found;
	m = row ? model_of(r, row) : NULL;
	json_decref(row);
	if (m)
		return m;
down:
	err_unavailable(e, MSG_DB_DOWN);
	return NULL;
not_found:
	err_set(e, 404, "not_found", NULL, "%s", MSG_NO_RUN);
	return NULL;
}
