/* SPDX-License-Identifier: MIT */
/* Folders for what the generators write (output.c): made as mkdir -p does, a failure
 * worded once, naming the path and what is wrong with it. */
#ifndef AXL_CLI_OUTPUT_H
#define AXL_CLI_OUTPUT_H

#include <stddef.h>

#include "axl.h"

/* dir and every missing folder above it, mode 0755. 0, or 1 after one line on stderr
 * ("cannot create DIR: PART is not a directory", "... permission denied in PARENT"). */
int cli_make_dir(const char *dir);

/* The inventory's accelerators (devices other than the CPU). */
size_t cli_accelerator_count(const axl_inventory *inv);

/* What a user on a node without accelerators tries next (standard error), axl list's and
 * the other commands' that find none; all_shown: the PCI functions were just listed
 * (axl list --all), so that is not suggested. */
void cli_no_accelerators_hint(int all_shown);

#endif
