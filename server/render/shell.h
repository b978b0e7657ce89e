/* shell.h: the POSIX shell output context, for the commands pages show to
 * be copied into a terminal (/wanted's "llm-speed bench ...").  Every
 * argument built from data (a model's shown name, which keys choose)
 * reaches a command through shell_arg(). */
#ifndef LLMS_SHELL_H
#define LLMS_SHELL_H

#include "util/buf.h"

/* Appends s as one shell word: in single quotes, each ' written '\''
 * (POSIX sh, "Quoting"), so no character of it is special, $ ` \ ! and
 * line breaks included.  An argument that begins with '-' would be read
 * as an option by the command (--server=...), so such an s, an empty one
 * and NULL are not appended: -1, and the caller names the thing another
 * way.  0 when appended. */
int shell_arg(struct buf *b, const char *s);

#endif
