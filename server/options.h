/* options.h: the daemon's settings from its flags and environment (options.c). */
#ifndef LLMS_OPTIONS_H
#define LLMS_OPTIONS_H

#include "app.h"

/* Every setting: its flag, its environment variable, its default. */
extern const char usage[];

/* Fills c from the environment, with the defaults for what is unset; exits
 * with status 2 naming a variable that is not a whole number. */
void defaults(struct config *c);

/* Parses the options; returns the index of the first operand, or -1 after
 * printing what is wrong. With `command` 0 it stops at the first operand (the
 * command's name); with 1 argv[0] is the command and options may come
 * anywhere among its operands, which GNU getopt moves to the end. */
int parse_options(int argc, char **argv, struct config *c, int command);

#endif
