/* upload.c: the upload endpoint: JWS -> validated run -> stored run. */
#include "ingest/upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <time.h>

#include "ingest/account.h"
#include "app.h"
#include "http/answer.h"
#include "http/cache.h"
#include "store/db.h"
#include "store/netcap.h"
#include "store/netkey.h"
#include "http/defer.h"
#include "ingest/jws.h"
#include "http/ratelimit.h"
#include "http/store_err.h"
#include "store/run_store.h"
#include "store/scope.h"
#include "ingest/validate.h"
#include "util/timefmt.h"

/* One upload in flight, the state of its row (defer.h): what the writer
 * needs, kept until the request ends (the connection is suspended while
 * the writer works). */
struct upload {
	struct run_new n;
	char net[NETKEY_HEX];           /* the uploader's network (store/netkey.h) */
	struct jws jws;
	json_t *payload;
};
DEFER_STATE(struct upload, n.j);

/* Frees what the upload owns (release; defer.c frees the state). */
static void upload_release(void *state)
{
	struct upload *u = state;

	json_decref(u->n.affected);
	buf_release(&u->n.packed);
	json_decref(u->payload);
	jws_free(&u->jws);
}

/* What lists show moved: the pages of the run's model, hardware and
 * digest, and of the combination whose count of new keys it changed
 * (and every list page kept without a scope, store/scope.h), or every
 * list page when the run changed more (run_new.wide). */
static void bump_lists(struct cache *c, const struct run_new *n)
{
	unsigned tags[6] = { scope_tag('m', n->f.model_slug), scope_tag('h', n->f.hw_slug),
			     scope_tag('d', n->f.model_digest), n->other_scopes[0],
			     n->other_scopes[1], n->other_scopes[2] };

	if (n->wide)
		cache_bump_lists(c);
	else
		cache_bump_scopes(c, tags, 6);
}

/* On the sync thread, after the commit (or its failure): drops the
 * cached pages the commit changed (the runs whose flag moved, and every
 * page showing the cluster's figures, by its generation) here, right
 * after it, and not when the answer is sent: a client that has gone away
 * by then (libmicrohttpd closes a resumed connection whose peer hung up
 * without calling the handler again) must not leave stale outlier flags
 * in the cache. */
static void upload_done(struct req *r, void *state)
{
	struct upload *u = state;
	struct cache *c = r->app->cache;
	size_t i;

	if (u->n.j.rc == DB_OK && !u->n.duplicate && !u->n.clash.field) {
		for (i = 0; i < json_array_size(u->n.affected); i++)
			cache_invalidate(c, json_string_value(json_array_get(u->n.affected, i)));
		cache_invalidate(c, u->n.id);
		cache_bump_cluster(c, u->n.cluster_tag);
		cache_bump_cluster(c, u->n.other_tag);
		cache_bump_cluster(c, u->n.combo_tag);
		bump_lists(c, &u->n);
	}
}

/* Resolves the Authorization header to an account id (0: none).
 * Returns 0, -1 with the 401 in e, or -2 with a 503 in e (the database
 * failed, not the client). */
static int attribute(struct req *r, long long *account, struct err *e)
{
	const char *auth = http_header(r, "Authorization");
	const char *anon = http_header(r, "X-LLM-Speed-Anon");
	struct dbconn *c;
	int rc;

	*account = 0;
	if (!auth)
		return 0;
	if (strncasecmp(auth, "Bearer ", 7) != 0 || !auth[7])
		return err_set(e, 401, "invalid_token", NULL, "%s",
			       "The Authorization header must be \"Bearer <token>\" with the token printed by `llm-speedd account add`.");
	c = db_reader(r->app->db);
	rc = c ? account_lookup(c, auth + 7, account) : DB_ERR;
	if (rc == DB_NOTFOUND)
		return err_set(e, 401, "invalid_token", NULL, "%s",
			       "The bearer token is unknown or revoked; check it, or upload without an Authorization header.");
	if (rc != DB_OK) {
		http_db_err(e, rc);
		return -2;
	}
	if (anon && !strcmp(anon, "1"))
		*account = 0;
	return 0;
}

/* Answers the client once the writer has finished with the upload: 201
 * (200 for the same run again) with its addresses, a refusal the writer
 * found (a name that reads as another's), or 503. */
static int upload_finish(struct req *r, void *state, struct answer *a)
{
	struct upload *u = state;
	char origin[300], url[400], badge[400];
	struct http_opts o = { 0 };
	json_t *body;
	int rc;

	if (u->n.j.rc != DB_OK)
		return http_db_err(&a->err, u->n.j.rc);
	if (u->n.new_key_refused) {
		r->retry_after = u->n.retry_after;
		return err_set(&a->err, 429, "rate_limited", NULL, "This network has brought %u new "
			       "signing keys today, its daily allowance; upload with a key this server has "
			       "seen before, or wait for the time in Retry-After (the next UTC day).",
			       netcap_new_keys());
	}
	if (u->n.clash.field) {
		char addr[80];

		/* A refusal like the others, found by the writer. */
		http_client_key(r, addr, sizeof addr);
		ratelimit_take(r->app->refusal_rl, addr);
		return http_clash_err(&a->err, &u->n.clash);
	}
	http_origin(r, origin, sizeof origin);
	snprintf(url, sizeof url, "%s/r/%s", origin, u->n.id);
	snprintf(badge, sizeof badge, "%s/badge/%s.svg", origin, u->n.id);
	body = json_pack("{s:s, s:s, s:s, s:b}", "id", u->n.id, "url", url,
			 "badge_url", badge, "outlier", u->n.outlier);
	o.location = url;
	rc = body ? answer_json(a, u->n.duplicate ? 200 : 201, body, &o) : -1;
	json_decref(body);
	return rc;
}

/* Checks everything about the request that does not need the database.
 * Returns 0, or the status of the refusal in e. */
static unsigned check(struct req *r, struct upload *u, struct err *e)
{
	if (!http_ctype_is(r, CT_JOSE)) {
		err_set(e, 415, "unsupported_media_type", NULL, "%s",
			"Send the run as a compact JWS with Content-Type: application/jose.");
		return 415;
	}
	if (jws_parse_verify(r->body.buf, r->body.len, &u->jws, e) != JWS_OK ||
	    validate_payload_bytes(u->jws.payload, u->jws.payload_len, time_now(),
				   &u->payload, &u->n.f, e) != 0)
		return e->status;
	validate_resolve(r->app->ref, u->payload, &u->n.f);
	return 0;
}

/* The rate-limit key: the account when attributed, else the address (for
 * IPv6, its /64; see http_client_key). */
static const char *rate_key(struct req *r, const struct upload *u, char key[80])
{
	if (u->n.account_id)
		snprintf(key, 80, "account:%lld", u->n.account_id);
	else
		http_client_key(r, key, 80);
	return key;
}

/* Counts a refused upload against the client's address, whatever the
 * refusal: a bad signature, a payload that breaks a rule, a refused
 * backend, an unknown token.  Returns -1. */
static int refused(struct req *r, const char *addr)
{
	ratelimit_take(r->app->refusal_rl, addr);
	return -1;
}

/* The 429 of the upload rate: wait seconds. */
static int limited(struct req *r, unsigned wait, struct err *e)
{
	r->retry_after = wait;
	return err_set(e, 429, "rate_limited", NULL, "%s",
		       "Too many uploads from this client; wait for the time in Retry-After and send again.");
}

/* Points the run's fields at what was checked, for the writer. */
static void prepare(struct req *r, struct upload *u)
{
	u->n.payload = u->jws.payload;
	u->n.payload_len = u->jws.payload_len;
	u->n.jws = r->body.buf;
	u->n.jws_len = r->body.len;
	run_store_pack(&u->n);
	u->n.thumbprint = u->jws.thumbprint;
	u->n.alg = u->jws.alg == JWS_ALG_ES256 ? "ES256" : "EdDSA";
}

/* Checks the upload (the row's check): the address's refusals, the token,
 * the upload rate, the JWS and the payload, then the allowance; 0 with
 * the run ready for the writer, or -1 with the refusal in e. */
static int upload_check(struct req *r, void *state, struct err *e)
{
	struct upload *u = state;
	char key[80], addr[80];
	unsigned wait, status;

	/* A client whose uploads keep being refused is refused at once, by
	 * address, before its token is looked up or its signature checked:
	 * a flood of bad signatures (an ES256 verify costs milliseconds)
	 * costs only this lookup. */
	http_client_key(r, addr, sizeof addr);
	if ((r->retry_after = ratelimit_check(r->app->refusal_rl, addr)) > 0)
		return err_set(e, 429, "rate_limited", NULL, "%s",
			       "Too many refused uploads from this address; fix what the last answers named, wait for the time in Retry-After and send again.");
	/* Cheap refusals first: the token lookup and the rate limit come
	 * before the signature is verified, so a flood over the limit costs
	 * no verification.  The allowance is only used up by an upload that
	 * passed every check. */
	switch (attribute(r, &u->n.account_id, e)) {
	case -1:
		return refused(r, addr);
	case -2:
		return -1;
	}
	rate_key(r, u, key);
	if ((wait = ratelimit_check(r->app->upload_rl, key)) > 0)
		return limited(r, wait, e);
	/* Out of memory is the server's failing, not the client's. */
	if ((status = check(r, u, e)) != 0)
		return status >= 500 ? -1 : refused(r, addr);
	if ((wait = ratelimit_take(r->app->upload_rl, key)) > 0)
		return limited(r, wait, e);
	prepare(r, u);
	if (r->app->netkey)
		netkey_of(r->app->netkey, r->client, u->net);
	u->n.net = u->net;
	return 0;
}

const struct defer_row upload_write = {
	sizeof(struct upload), upload_check, run_store_run, upload_done, upload_finish,
	upload_release,
};
