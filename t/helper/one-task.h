/* SPDX-License-Identifier: MIT */
/*
 * one-task.h - for the annotated programs the record tests build
 * (record_app in t/record-lib.bash): one_task(), an AppTask of type 1
 * that sleeps 1 ms.
 */
#ifndef VS_T_ONE_TASK_H
#define VS_T_ONE_TASK_H

#include <time.h>
#include "varscope.h"

static inline void one_task(void)
{
	struct timespec ts = { 0, 1000000 };

	vs_task_begin(1);
	nanosleep(&ts, NULL);
	vs_task_end(1);
}

#endif
