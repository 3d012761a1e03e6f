// SPDX-License-Identifier: MIT
/*
 * trace-copy.c - copy a varscope trace record by record, or count the
 * record kinds it stores, for the format tests.
 *
 *   trace-copy [--major N] [--level L] IN OUT
 *                                   read every record of IN and write it to
 *                                   a new trace OUT of format major N
 *                                   (default this build's): 1 writes tasks
 *                                   as kind 2, 2 packs them (kind 17);
 *                                   zlib level L (default 1)
 *   trace-copy --kinds IN           print "KIND COUNT" for every record
 *                                   kind as stored in IN's chunks (the
 *                                   reader gives packed tasks back as
 *                                   tasks; this looks at the bytes)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/parse-options.h"
#include "core/trace/trace.h"
#include "core/trace/trace-codec.h"

static const char *const copy_usage[] = {
	"trace-copy [--major N] [--level L] IN OUT",
	"trace-copy --kinds IN",
	NULL
};

static int copy(const char *in, const char *out, unsigned int major,
		int level)
{
	struct vs_header hdr;
	struct vs_reader *r;
	struct vs_writer *w;
	struct vs_record rec;
	char err[512];
	int ret;

	r = vs_reader_open(in, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "trace-copy: %s\n", err);
		return 1;
	}
	hdr = *vs_reader_header(r);
	hdr.major = major;
	hdr.minor = 0;
	w = vs_writer_open(out, &hdr);
	if (!w) {
		fprintf(stderr, "trace-copy: %s: %s\n", out, strerror(errno));
		return 1;
	}
	vs_writer_set_level(w, level);
	while ((ret = vs_reader_next(r, &rec)) > 0)
		if (vs_writer_add(w, &rec)) {
			fprintf(stderr, "trace-copy: %s: %s\n", out,
				strerror(errno));
			return 1;
		}
	if (ret < 0)
		fprintf(stderr, "trace-copy: %s\n", vs_reader_error(r));
	vs_reader_close(r);
	if (vs_writer_close(w)) {
		fprintf(stderr, "trace-copy: %s: %s\n", out, strerror(errno));
		return 1;
	}
	return ret < 0;
}

/* Count the records of each kind in the chunks of @path, as stored. */
static int kinds(const char *path)
{
	static uint64_t count[VS_REC__MAX + 1];
	uint8_t prefix[VS_FILE_HDR_PREFIX], hb[VS_CHUNK_HDR_LEN];
	uint8_t *comp = NULL, *raw = NULL;
	struct vs_chunk_hdr h;
	FILE *fp = fopen(path, "r");
	z_stream zs = { 0 };
	uint16_t major;
	uint32_t len;
	size_t where, pos;
	unsigned int k;

	if (!fp || fread(prefix, 1, sizeof(prefix), fp) != sizeof(prefix) ||
	    vs_file_hdr_prefix(prefix, sizeof(prefix), &major, &len, &where) ||
	    fseek(fp, len, SEEK_SET) || inflateInit2(&zs, -15) != Z_OK) {
		fprintf(stderr, "trace-copy: %s: not a readable trace\n", path);
		return 1;
	}
	while (fread(hb, 1, sizeof(hb), fp) == sizeof(hb) &&
	       !vs_chunk_hdr_decode(hb, &h) && !(h.flags & VS_CHUNK_END)) {
		comp = realloc(comp, h.comp_len + 1);
		raw = realloc(raw, h.raw_len + 1);
		if (!comp || !raw || fread(comp, 1, h.comp_len, fp) != h.comp_len)
			break;
		inflateReset(&zs);
		zs.next_in = comp;
		zs.avail_in = h.comp_len;
		zs.next_out = raw;
		zs.avail_out = h.raw_len;
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END)
			break;
		for (pos = 0; pos + VS_REC_HDR_LEN <= h.raw_len;
		     pos += VS_REC_HDR_LEN + vs_get32(raw + pos + 2))
			count[vs_get16(raw + pos)]++;
	}
	inflateEnd(&zs);
	free(comp);
	free(raw);
	fclose(fp);
	for (k = 0; k <= VS_REC__MAX; k++)
		if (count[k])
			printf("%u %llu\n", k, (unsigned long long)count[k]);
	return 0;
}

int main(int argc, const char **argv)
{
	uint64_t major = VS_FORMAT_MAJOR;
	bool list_kinds = false;
	int level = 1;
	const struct vs_option options[] = {
		OPT_U64(0, "major", &major, "format major version to write"),
		OPT_INTEGER(0, "level", &level, "zlib level (0: stored)"),
		OPT_BOOLEAN(0, "kinds", &list_kinds,
			 "count the record kinds stored in IN"),
		OPT_END()
	};

	vs_cmd_name = "trace-copy";
	argc = parse_options(argc, argv, options, copy_usage, 0);
	if (list_kinds && argc == 1)
		return kinds(argv[0]);
	if (list_kinds || argc != 2)
		usage_with_options(copy_usage, options);
	return copy(argv[0], argv[1], major, level);
}
