/* upload.c: the upload endpoint: JWS -> validated run -> stored run. */
#include "ingest/upload.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>
#include <time.h>

#include "ingest/account.h"
#include "app.h"
#include "http/cache.h"
#include "store/db.h"
#include "store/netcap.h"
#include "store/netkey.h"
#include "http/defer.h"
#include "ingest/jws.h"
#include "http/ratelimit.h"
#include "store/run_store.h"
#include "ingest/validate.h"
#include "util/timefmt.h"

/* One upload in flight: what the writer needs, kept alive until the request
 * ends (the connection is suspended while the writer works). */
struct upload {
	struct run_new n;
	char net[NETKEY_HEX];           /* the uploader's network (store/netkey.h) */
	struct jws jws;
	json_t *payload;
	struct req *r;
};

static void upload_free(void *p)
{
	struct upload *u = p;

	json_decref(u->n.affected);
	json_decref(u->payload);
	jws_free(&u->jws);
	free(u);
}

/* Writer callback: the commit is done (or failed).  Drops the cached pages
 * the commit changed (the runs whose flag moved, and every page showing
 * the cluster's figures, by its generation) here, right after it, and not when the answer is
 * sent: a client that has gone away by then (libmicrohttpd closes a
 * resumed connection whose peer hung up without calling the handler
 * again) must not leave stale outlier flags in the cache.  Then wakes the
 * connection. */
static void upload_done(struct db_job *j)
{
	struct upload *u = container_of(j, struct upload, n.j);
	struct cache *c = u->r->app->cache;
	size_t i;

	if (u->n.j.rc == DB_OK && !u->n.duplicate && !u->n.clash.field) {
		for (i = 0; i < json_array_size(u->n.affected); i++)
			cache_invalidate(c, json_string_value(json_array_get(u->n.affected, i)));
		cache_invalidate(c, u->n.id);
		cache_bump_cluster(c, u->n.cluster_tag);
		cache_bump_cluster(c, u->n.other_tag);
		cache_bump_cluster(c, u->n.combo_tag);
	}
	defer_wake(u->r);
}

/* Resolves the Authorization header to an account id (0: none).
 * Returns 0, -1 after queueing the 401, or -2 after queueing a 503 (the
 * database failed, not the client). */
static int attribute(struct req *r, long long *account, enum MHD_Result *ret)
{
	const char *auth = http_header(r, "Authorization");
	const char *anon = http_header(r, "X-LLM-Speed-Anon");
	struct dbconn *c;
	int rc;

	*account = 0;
	if (!auth)
		return 0;
	if (strncasecmp(auth, "Bearer ", 7) != 0 || !auth[7]) {
		*ret = http_fail(r, 401, "invalid_token",
				  "The Authorization header must be \"Bearer <token>\" with the token printed by `llm-speedd account add`.", NULL);
		return -1;
	}
	c = db_reader(r->app->db);
	rc = c ? account_lookup(c, auth + 7, account) : DB_ERR;
	if (rc == DB_NOTFOUND) {
		*ret = http_fail(r, 401, "invalid_token",
				  "The bearer token is unknown or revoked; check it, or upload without an Authorization header.", NULL);
		return -1;
	}
	if (rc != DB_OK) {
		*ret = http_fail(r, 503, NULL, db_status_message(rc), NULL);
		return -2;
	}
	if (anon && !strcmp(anon, "1"))
		*account = 0;
	return 0;
}

/* Answers the client once the writer has finished with the upload. */
static enum MHD_Result finish(struct req *r)
{
	struct upload *u = r->job;
	char origin[300], url[400], badge[400];
	struct http_opts o = { 0 };
	enum MHD_Result ret;
	json_t *body;

	if (u->n.j.rc != DB_OK)
		return http_fail(r, 503, NULL, db_status_message(u->n.j.rc), NULL);
	if (u->n.new_key_refused) {
		char msg[300];

		snprintf(msg, sizeof msg, "This network has brought %u new signing keys today, its "
			 "daily allowance; upload with a key this server has seen before, or wait for "
			 "the time in Retry-After (the next UTC day).", netcap_new_keys());
		r->retry_after = u->n.retry_after;
		return http_fail(r, 429, "rate_limited", msg, NULL);
	}
	if (u->n.clash.field) {
		struct err e = ERR_INIT;
		char addr[80];

		/* A refusal like the others, found by the writer. */
		http_client_key(r, addr, sizeof addr);
		ratelimit_take(r->app->refusal_rl, addr);
		names_clash_err(&u->n.clash, &e);
		return http_reply_err(r, &e);
	}
	http_origin(r, origin, sizeof origin);
	snprintf(url, sizeof url, "%s/r/%s", origin, u->n.id);
	snprintf(badge, sizeof badge, "%s/badge/%s.svg", origin, u->n.id);
	body = json_pack("{s:s, s:s, s:s, s:b, s:b}", "id", u->n.id, "url", url,
			 "badge_url", badge, "outlier", u->n.outlier, "counted", !u->n.capped);
	o.location = url;
	ret = http_send_json(r, u->n.duplicate ? 200 : 201, body, &o);
	json_decref(body);
	return ret;
}

/* Checks everything about the request that does not need the database.
 * Returns 0, or the status of the refusal it queued. */
static unsigned check(struct req *r, struct upload *u, enum MHD_Result *ret)
{
	struct err e;

	if (!http_ctype_is(r, CT_JOSE)) {
		*ret = http_fail(r, 415, "unsupported_media_type",
				  "Send the run as a compact JWS with Content-Type: application/jose.", NULL);
		return 415;
	}
	if (jws_parse_verify(r->body.buf, r->body.len, &u->jws, &e) != JWS_OK ||
	    validate_payload_bytes(u->jws.payload, u->jws.payload_len, time_now(),
				   &u->payload, &u->n.f, &e) != 0) {
		*ret = http_reply_err(r, &e);
		return e.status;
	}
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
 * backend, an unknown token.  Returns ret. */
static enum MHD_Result refused(struct req *r, const char *addr, enum MHD_Result ret)
{
	ratelimit_take(r->app->refusal_rl, addr);
	return ret;
}

enum MHD_Result upload_handle(struct req *r)
{
	enum MHD_Result ret = MHD_NO;
	char key[80], addr[80];
	struct upload *u;
	unsigned wait, status;

	if (r->job)
		return finish(r);
	/* A client whose uploads keep being refused is refused at once, by
	 * address, before its token is looked up or its signature checked:
	 * a flood of bad signatures (an ES256 verify costs milliseconds)
	 * costs only this lookup. */
	http_client_key(r, addr, sizeof addr);
	if ((r->retry_after = ratelimit_check(r->app->refusal_rl, addr)) > 0)
		return http_fail(r, 429, "rate_limited",
				 "Too many refused uploads from this address; fix what the last answers named, wait for the time in Retry-After and send again.", NULL);
	u = calloc(1, sizeof *u);
	if (!u)
		return http_send_nomem(r);
	/* Cheap refusals first: the token lookup and the rate limit come
	 * before the signature is verified, so a flood over the limit costs
	 * no verification.  The allowance is only used up by an upload that
	 * passed every check. */
	switch (attribute(r, &u->n.account_id, &ret)) {
	case -1:
		goto refuse;
	case -2:
		upload_free(u);
		return ret;
	}
	rate_key(r, u, key);
	if ((wait = ratelimit_check(r->app->upload_rl, key)) > 0)
		goto limited;
	if ((status = check(r, u, &ret)) != 0) {
		upload_free(u);
		/* Out of memory is the server's failing, not the client's. */
		return status >= 500 ? ret : refused(r, addr, ret);
	}
	if ((wait = ratelimit_take(r->app->upload_rl, key)) > 0)
		goto limited;
	u->r = r;
	u->n.payload = u->jws.payload;
	u->n.payload_len = u->jws.payload_len;
	u->n.jws = r->body.buf;
	u->n.jws_len = r->body.len;
	u->n.thumbprint = u->jws.thumbprint;
	u->n.alg = u->jws.alg == JWS_ALG_ES256 ? "ES256" : "EdDSA";
	if (r->app->netkey)
		netkey_of(r->app->netkey, r->client, u->net);
	u->n.net = u->net;
	run_new_memory(&u->n, u->payload);
	run_new_init(&u->n);
	return defer_submit(r, &u->n.j, upload_done, u, upload_free);
limited:
	r->retry_after = wait;
	ret = http_fail(r, 429, "rate_limited",
			 "Too many uploads from this client; wait for the time in Retry-After and send again.", NULL);
	upload_free(u);
	return ret;
refuse:
	upload_free(u);
	return refused(r, addr, ret);
}
