/* SPDX-License-Identifier: MIT */
/*
 * list-print.h - what varscope list prints of each event of an
 * architecture's table: a line of text or a JSON object.
 */
#ifndef VS_UI_LIST_PRINT_H
#define VS_UI_LIST_PRINT_H

#include "core/arch.h"
#include "ui/json.h"

/**
 * vs_list_print_text - @e as one line on the standard output: its name,
 * unit, group, parent, encoding and flags
 */
void vs_list_print_text(const struct vs_arch_event *e);

/**
 * vs_list_print_json - @e as one JSON object on a line of @j
 */
void vs_list_print_json(struct json_out *j, const struct vs_arch_event *e);

#endif /* VS_UI_LIST_PRINT_H */
