/* names.h: the name a model or hardware is shown by, and names that look
 * like it (issue 23).
 *
 * Runs of one slug may name it differently ("Qwen/Qwen3-Coder-30B-A3B-
 * Instruct", "Qwen3-Coder-30B-A3B-Instruct-4bit", or an attacker's "FAKE
 * WEIGHTS - .../Qwen3-Coder-30B-A3B-Instruct").  Migration 0021 keeps, on
 * every write, search_names.name as the name most distinct signing keys
 * used among the slug's counted runs, ties to the one seen first.  Every
 * page, list, feed and search result that names a model or hardware reads
 * it there with NAMES_MODEL / NAMES_HW (one probe of search_names' unique
 * index); a run's own page, JSON, badge and export keep the name it was
 * sent with. */
#ifndef LLMS_NAMES_H
#define LLMS_NAMES_H

#include "store/db.h"
#include "store/run_fields.h"
#include "util/err.h"

/* SQL for the shown name of the model or hardware whose slug is the
 * column (or expression) slug_col, else own_col (a run's own name: only
 * for a slug search_names has no row for, which no stored run leaves). */
#define NAMES_SHOWN(kind, slug_col, own_col) \
	"coalesce((SELECT name FROM search_names WHERE kind = '" kind "' AND slug = " \
	slug_col "), " own_col ")"
#define NAMES_MODEL(slug_col, own_col) NAMES_SHOWN("model", slug_col, own_col)
#define NAMES_HW(slug_col, own_col) NAMES_SHOWN("hw", slug_col, own_col)

/* A name refused because it reads as another slug's. */
struct names_clash {
	const char *field;        /* "model.name" or "hardware.accelerator_summary";
				   * NULL: no clash */
	const char *what;         /* "model" or "hardware" */
	const char *prefix;       /* "/m/" or "/hw/" */
	char slug[128];           /* the slug it reads as, which exists */
	char name[256];           /* that slug's shown name (cut at a character) */
};

/* Looks up, on connection c (the writer's, in the upload's transaction),
 * whether f's model or hardware name reads as a page that exists other
 * than its own: its reading (util/confusable.h, confusable_latin) resolves
 * to that page (f->model_lookalike, f->hw_lookalike), or, for a name that
 * resolved to no reference, one of its keys (confusable_keys: ICU's UTS
 * #39 skeletons, case aside) is a key of a name that page was uploaded
 * under or of its reference's names and aliases ("LIama-3.1-8B" and
 * "Llarna-3.1-8B" read as "Llama-3.1-8B").  A name that lands on the page
 * it reads as (a non-breaking hyphen, an "hf.co/" prefix) is no clash.
 * Fills *out (field NULL when neither name clashes).  Returns DB_OK, or a
 * DB_ status when a read fails. */
int names_lookalike(struct dbconn *c, const struct run_fields *f, struct names_clash *out);

/* Registers f's model and hardware names, in the upload's transaction
 * before its run is stored: each new (kind, slug, name) enters name_votes
 * judged (plain: whether it may be shown, domain/shown.h) and its keys
 * enter name_skeletons for its page.  A db_status. */
int names_register(struct dbconn *c, const struct run_fields *f);

/* Bytes a shown name is compared in (names are far shorter). */
#define NAME_SHOWN_MAX 512

/* The shown name of (kind "model" or "hw", slug) into out (n bytes, cut
 * there; "" when it has none): 1, 0 when none, or a negative DB_ status. */
int names_shown_of(struct dbconn *c, const char *kind, const char *slug, char *out, size_t n);

/* At start, on the writer (migration 0031): makes name_skeletons anew
 * with the reference data's names when ICU, the reference data or the
 * rules changed since they were made (every name is then judged again),
 * then judges, a batch per transaction, the names not judged yet (those
 * that came other than by an upload: a run the identity pass moved, a
 * row written with sqlite3).  A db_status, with the reason in err. */
int names_refresh(struct dbconn *w, struct err *err);

/* The statements of the upload's path, for the query-plan tests. */
extern const char *const names_sql[];

#endif
