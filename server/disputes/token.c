/* token.c: the form token (an HMAC over run and day) and the same-site
 * checks of the browser form. */
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "app.h"
#include "disputes/dispute_int.h"


#define TOKEN_DAY 86400

static unsigned char form_key[crypto_auth_KEYBYTES];
static pthread_once_t form_key_once = PTHREAD_ONCE_INIT;
static int form_key_loaded;

/* Draws a process-only form key, once, unless dispute_init() loaded the
 * database's key (unit tests run without a database). */
static void form_key_init(void)
{
	if (sodium_init() < 0)
		abort();
	if (!form_key_loaded)
		randombytes_buf(form_key, sizeof form_key);
}

static const char sql_key_get[] = "SELECT value FROM secrets WHERE name = 'form_key'";
static const char sql_key_put[] = "INSERT INTO secrets(name, value) VALUES ('form_key', ?)";

/* Writer job: reads the stored form key, storing a fresh one the first
 * time, into form_key. */
static int key_run(struct dbconn *w, struct db_job *j)
{
	sqlite3_stmt *st = db_stmt(w, sql_key_get);
	int rc;

	if (!st)
		return DB_ERR;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == (int)sizeof form_key) {
		memcpy(form_key, sqlite3_column_blob(st, 0), sizeof form_key);
		sqlite3_reset(st);
		return DB_OK;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE || !(st = db_stmt(w, sql_key_put)))
		return DB_ERR;
	randombytes_buf(form_key, sizeof form_key);
	sqlite3_bind_blob(st, 1, form_key, sizeof form_key, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? DB_OK : db_status_of(rc);
}

int dispute_init(struct db *db)
{
	struct db_job j = { .run = key_run };

	if (db_write(db, &j) != DB_OK)
		return -1;
	form_key_loaded = 1;
	return 0;
}

/* The token for run_id in day window day. */
static void token_of(const char *run_id, long long day, char out[DISPUTE_TOKEN_LEN])
{
	unsigned char mac[crypto_auth_BYTES];
	char msg[200];
	int n;

	pthread_once(&form_key_once, form_key_init);
	n = snprintf(msg, sizeof msg, "dispute-form\n%s\n%lld", run_id, day);
	if (n < 0 || (size_t)n >= sizeof msg)
		n = 0;
	crypto_auth(mac, (const unsigned char *)msg, (unsigned long long)n, form_key);
	sodium_bin2base64(out, DISPUTE_TOKEN_LEN, mac, sizeof mac,
			  sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

void dispute_form_token(const char *run_id, long long now, char out[DISPUTE_TOKEN_LEN])
{
	token_of(run_id, now / TOKEN_DAY, out);
}

/* How many days before now's the token for run_id was made, looking back
 * at most max days; -1 when it is no token of this process for run_id. */
static int token_age(const char *run_id, const char *token, long long now, int max)
{
	char want[DISPUTE_TOKEN_LEN];
	size_t n = strlen(token);
	int back;

	for (back = 0; back <= max; back++) {
		token_of(run_id, now / TOKEN_DAY - back, want);
		if (n != strlen(want))
			return -1;
		if (sodium_memcmp(token, want, n) == 0)
			return back;
	}
	return -1;
}

int dispute_form_token_ok(const char *run_id, const char *token, long long now)
{
	return token_age(run_id, token, now, 1) >= 0;
}

/* How far back a refused token is still recognised as one of ours from a
 * page cached on an older day (the cache has no expiry of its own). */
#define TOKEN_STALE_DAYS 400

/* 1 when token is one this process made for run_id on a day before the
 * accepted ones: the page that carried it is a stale cached copy.  A made-up
 * token is not, so it cannot be used to empty the cache at will. */
int dispute_token_stale(const char *run_id, const char *token, long long now)
{
	return token_age(run_id, token, now, TOKEN_STALE_DAYS) > 1;
}

/* 1 when the origin o[0..n) ("scheme://host[:port]") is this site's: the
 * configured origin, or without --base-url the address the client used. */
static int origin_is_ours(struct req *r, const char *o, size_t n)
{
	static const char *const schemes[] = { "http://", "https://" };
	const char *host = http_header(r, "Host");
	char own[300];
	size_t i, sl, ol;

	http_origin(r, own, sizeof own);
	ol = strlen(own);
	if (ol && own[ol - 1] == '/')
		ol--;                 /* --base-url https://host/ */
	if (n == ol && !strncasecmp(o, own, n))
		return 1;
	if (r->app->cfg.base_url || !host)
		return 0;
	for (i = 0; i < 2; i++) {
		sl = strlen(schemes[i]);
		if (n == sl + strlen(host) && !strncasecmp(o, schemes[i], sl) &&
		    !strncasecmp(o + sl, host, n - sl))
			return 1;
	}
	return 0;
}

/* 1 when the request came from a page of this site: its Origin, or
 * without one the origin part of its Referer, is ours. */
int dispute_same_site(struct req *r)
{
	const char *o = http_header(r, "Origin");
	const char *ref = http_header(r, "Referer");
	const char *p;

	if (o)
		return origin_is_ours(r, o, strlen(o));
	if (!ref || !(p = strstr(ref, "://")))
		return 0;
	p = strchr(p + 3, '/');
	return origin_is_ours(r, ref, p ? (size_t)(p - ref) : strlen(ref));
}
