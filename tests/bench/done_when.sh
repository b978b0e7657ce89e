#!/bin/sh
# The greps of issue 34's "Done when", run in the tree given as $1 (default .).
cd "${1:-.}"
echo "enum MHD_Result * parameters: $(grep -rn 'enum MHD_Result \*' server | wc -l)"
echo "char *err, size_t errlen parameters (a char * for a message, and its size): $(grep -rnE '(^|[(,[:space:]])char \*(err|why|msg)[a-z]*, size_t' server | grep -v 'unsigned char' | wc -l)"
echo "http_fail outside http/: $(grep -rn 'http_fail' server --include=*.c --include=*.h | grep -v '^server/http/' | wc -l)"
echo "http_reply_err outside http/: $(grep -rn 'http_reply_err' server --include=*.c | grep -v '^server/http/' | wc -l)"
echo "if (r->job) in the four writes: $(grep -n 'if (r->job)' server/ingest/upload.c server/disputes/post.c server/disputes/moderate.c server/ingest/withdraw.c | wc -l)"
echo "pages/ files with tests/pages/check_<file>.c: $(for f in server/pages/*.c; do b=$(basename $f .c); [ -f tests/pages/check_$b.c ] && echo $b; done | wc -l) of $(ls server/pages/*.c | wc -l)"
echo "queueing outside http/ (http_send*, cache_send*, http_not_modified, http_reply_err*, http_fail, MHD_queue_response): $(grep -rnE '\b(http_send|http_send_json|http_send_prebuilt|http_send_nomem|http_not_modified|cache_send|cache_send_tagged|cache_serve|MHD_queue_response|http_reply_err|http_reply_err_json|http_fail)\(' server --include=*.c | grep -v '^server/http/' | wc -l)"
echo "answer_send called outside http/: $(grep -rln 'answer_send(' server --include=*.c | grep -v '^server/http/' | tr '\n' ' ')"
echo "NELEM definitions: $(grep -rn 'define NELEM' server | wc -l)"
echo "vsnprintf outside util/err.c: $(grep -rln 'vsnprintf' server | grep -v 'server/util/err.c' | tr '\n' ' ')"
