/* store_err.c: the store's failures as a client's answers (store_err.h). */
#include "http/store_err.h"

#include "store/db.h"

int http_db_err(struct err *e, int status)
{
	return err_unavailable(e, db_status_message(status));
}

int http_clash_err(struct err *e, const struct names_clash *clash)
{
	return err_set(e, 422, "confusable_name", clash->field,
		       "%s looks like the %s \"%s\" (%s%s) but is spelt with look-alike letters or invisible characters; "
		       "send that %s's name, or one that reads differently.",
		       clash->field, clash->what, clash->name, clash->prefix, clash->slug, clash->what);
}
