// SPDX-License-Identifier: MIT
/*
 * fuzz-reader.c - libFuzzer target for the trace reader: open the input as
 * a trace, read and print every record, seek by a time taken from the
 * input and read again, ask the index for the time range.  Built with -DVS_FUZZING, which skips the CRC
 * checks so that mutations reach the decoder (`make fuzz`).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "core/trace/trace.h"
#include "ui/record-print.h"

/* Enough to cover every path; inputs are small. */
#define MAX_RECORDS	100000

static FILE *sink;

static void read_all(struct vs_reader *r)
{
	struct vs_record rec;
	int n = 0;

	while (n++ < MAX_RECORDS && vs_reader_next(r, &rec) > 0) {
		vs_print_record_json(sink, r, NULL, &rec);
		vs_print_record_text(sink, r, NULL, &rec);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	struct vs_reader *r;
	uint64_t t = 0, first, last;
	char err[512];

	if (!sink)
		sink = fopen("/dev/null", "w");
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	r = vs_reader_fdopen(fd, "fuzz", err, sizeof(err));
	if (!r)
		return 0;
	vs_print_header_json(sink, vs_reader_header(r));
	read_all(r);
	if (size >= 8)
		memcpy(&t, data + size - 8, 8);
	if (!vs_reader_seek_time(r, t))
		read_all(r);
	if (!vs_reader_time_range(r, &first, &last))
		vs_reader_offset_until(r, first + (last - first) / 2);
	vs_reader_close(r);
	return 0;
}
