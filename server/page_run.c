/* page_run.c: the run permalink /r/<id>, its JSON and its exact JWS. */
#include "page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cache.h"
#include "db.h"
#include "dispute.h"
#include "run_store.h"

static const char sql_run[] =
	"SELECT r.id, r.suite_version, r.model_name, r.model_slug, r.model_digest, "
	"r.model_quant, r.model_format, r.accelerator, r.hw_slug, r.fingerprint_hash, "
	"r.hw_class, r.backend_name, r.backend_version, r.decode_tok_s, r.created_at, "
	"r.received_at, r.key_thumbprint, r.alg, a.name AS account, r.demo, r.outlier, "
	"r.status, r.payload, c.n AS cluster_n, c.mean AS cluster_mean, "
	"c.stddev AS cluster_stddev "
	"FROM runs r LEFT JOIN accounts a ON a.id = r.account_id "
	"LEFT JOIN clusters c ON c.suite_version = r.suite_version "
	"AND c.model_digest = r.model_digest AND c.hw_class = r.hw_class "
	"AND c.backend_name = r.backend_name WHERE r.id = ?";
static const char sql_jws[] = "SELECT jws FROM runs WHERE id = ?";

/* Shorthand: the string member k of row o, or NULL. */
static const char *s_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The outlier block: the flag, the cluster's figures and this run's
 * distance from the mean in standard deviations. */
static json_t *outlier_json(const json_t *row)
{
	double x = json_number_value(json_object_get(row, "decode_tok_s"));
	json_t *n = json_object_get(row, "cluster_n");
	double mean = json_number_value(json_object_get(row, "cluster_mean"));
	double sd = json_number_value(json_object_get(row, "cluster_stddev"));
	json_t *o;

	o = json_pack("{s:b}", "flagged", json_integer_value(json_object_get(row, "outlier")) != 0);
	if (json_is_integer(n)) {
		json_object_set_new(o, "cluster", json_pack("{s:O, s:f, s:f}",
			"n", n, "mean", mean, "stddev", sd));
		json_object_set_new(o, "sigma", sd > 0 ? json_real((x - mean) / sd) : json_real(0));
	} else {
		json_object_set_new(o, "cluster", json_null());
		json_object_set_new(o, "sigma", json_null());
	}
	json_object_set_new(o, "hw_class", json_string(s_of(row, "hw_class")));
	return o;
}

/* Turns the database row into the view model. */
static json_t *model_of(struct req *r, json_t *row)
{
	char origin[300], url[400];
	const char *id = s_of(row, "id");
	json_t *payload, *m, *hw;

	payload = json_loads(s_of(row, "payload"), JSON_DECODE_ANY, NULL);
	if (!payload)
		payload = json_object();
	hw = json_deep_copy(json_object_get(payload, "hardware"));
	if (!json_is_object(hw)) {
		json_decref(hw);
		hw = json_object();
	}
	json_object_set_new(hw, "slug", json_string(s_of(row, "hw_slug")));
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
	json_object_set_new(m, "model", json_pack("{s:O, s:O, s:O, s:O, s:O}",
		"name", json_object_get(row, "model_name"),
		"slug", json_object_get(row, "model_slug"),
		"digest", json_object_get(row, "model_digest"),
		"quantization", json_object_get(row, "model_quant"),
		"format", json_object_get(row, "model_format")));
	json_object_set_new(m, "hardware", hw);
	json_object_set_new(m, "backend", json_pack("{s:O, s:O}",
		"name", json_object_get(row, "backend_name"),
		"version", json_object_get(row, "backend_version")));
	json_object_set_new(m, "signing", json_pack("{s:O, s:O}",
		"alg", json_object_get(row, "alg"),
		"thumbprint", json_object_get(row, "key_thumbprint")));
	json_object_set(m, "account", json_object_get(row, "account"));
	json_object_set_new(m, "demo", json_boolean(json_integer_value(json_object_get(row, "demo"))));
	json_object_set(m, "status", json_object_get(row, "status"));
	json_object_set_new(m, "outlier", outlier_json(row));
	json_object_set_new(m, "dispute", dispute_thread_json(r, id));
	json_object_set_new(m, "payload", payload);
	return m;
}

json_t *page_run_model(struct req *r, const char *id, unsigned *status)
{
	struct dbconn *c;
	sqlite3_stmt *st;
	json_t *row, *m;
	int rc;

	*status = 404;
	if (!run_id_valid(id))
		return NULL;
	*status = 503;
	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_run)))
		return NULL;
	db_bind_text(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		if (rc == SQLITE_DONE)
			*status = 404;
		return NULL;
	}
	row = db_row_json(st);
	sqlite3_reset(st);
	m = row ? model_of(r, row) : NULL;
	json_decref(row);
	*status = m ? 200 : 503;
	return m;
}

/* The run id from "/r/<id>.json" style arguments (the router strips the
 * suffix); answers 404 for people or scripts when the run is unknown. */
static enum MHD_Result not_found(struct req *r, int html)
{
	if (html)
		return page_error(r, 404, "There is no run with this id. Run ids look like r_y2_5y8oo97d; check the link.");
	return http_error(r, 404, "not_found", "There is no run with this id; run ids look like r_y2_5y8oo97d.", NULL);
}

enum MHD_Result page_run_json(struct req *r)
{
	uint64_t gen = cache_gen(r->app->cache);
	enum MHD_Result ret;
	unsigned status;
	json_t *m;
	char *s;

	if (cache_serve(r->app->cache, r, r->arg, REP_RUN_JSON, &ret))
		return ret;
	m = page_run_model(r, r->arg, &status);
	if (!m)
		return status == 404 ? not_found(r, 0)
			: http_error(r, 503, "unavailable", "The database is not answering; try again shortly.", NULL);
	s = json_dumps(m, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(m);
	if (!s)
		return MHD_NO;
	ret = cache_send(r->app->cache, r, r->arg, REP_RUN_JSON, gen, 200, CT_JSON,
			 s, strlen(s), CC_PAGE);
	free(s);
	return ret;
}

enum MHD_Result page_run_jws(struct req *r)
{
	struct http_opts o = { .cache_control = "public, max-age=31536000, immutable", .etag = 1 };
	enum MHD_Result ret;
	struct dbconn *c;
	sqlite3_stmt *st;
	int rc;

	if (!run_id_valid(r->arg))
		return not_found(r, 0);
	if (!(c = db_reader(r->app->db)) || !(st = db_stmt(c, sql_jws)))
		return http_error(r, 503, "unavailable", "The database is not answering; try again shortly.", NULL);
	db_bind_text(st, 1, r->arg);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(st);
		return not_found(r, 0);
	}
	ret = http_send(r, 200, CT_JOSE, sqlite3_column_blob(st, 0),
			(size_t)sqlite3_column_bytes(st, 0), &o);
	sqlite3_reset(st);
	return ret;
}

enum MHD_Result page_run(struct req *r)
{
	uint64_t gen = cache_gen(r->app->cache);
	enum MHD_Result ret;
	unsigned status;
	json_t *m;

	if (cache_serve(r->app->cache, r, r->arg, REP_RUN_HTML, &ret))
		return ret;
	m = page_run_model(r, r->arg, &status);
	if (!m)
		return status == 404 ? not_found(r, 1)
			: page_error(r, 503, "The database is not answering; try again shortly.");
	ret = page_render_cached(r, "run", m, REP_RUN_HTML, gen);
	json_decref(m);
	return ret;
}
