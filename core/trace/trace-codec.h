/* SPDX-License-Identifier: MIT */
/*
 * trace-codec.h - the byte layout of the varscope trace format, shared by
 * the writer, the reader and the commands that print records field by
 * field (varscope script).  Documentation/varscope-data-format.txt is the
 * specification; every constant here appears there.
 */
#ifndef VS_CORE_TRACE_CODEC_H
#define VS_CORE_TRACE_CODEC_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <endian.h>

#include "core/trace/trace.h"

/* File header: fixed part, then four strings, then a CRC32. */
#define VS_FILE_MAGIC		"VARSCOPE"
#define VS_FILE_MAGIC_LEN	8
#define VS_FILE_HDR_PREFIX	16	/* magic, version, length */
#define VS_FILE_HDR_FIXED	40
#define VS_FILE_HDR_MAX		65536

/* Chunk header: 48 bytes, fixed for every format of major 1. */
#define VS_CHUNK_MAGIC		0x4b435356u	/* "VSCK" */
#define VS_CHUNK_HDR_LEN	48
#define VS_CHUNK_CONTEXT	(1u << 0)	/* holds context records */
#define VS_CHUNK_END		(1u << 1)	/* the end mark written on close */
#define VS_CHUNK_TARGET		(256u * 1024)	/* writer cuts chunks here */
#define VS_CHUNK_RAW_MAX	(64u * 1024 * 1024)	/* readers refuse more */
#define VS_DEFLATE_MAX_RATIO	1032	/* deflate expands no more than this */

/* A record: u16 kind, u32 body size, body. */
#define VS_REC_HDR_LEN		6
#define VS_STR_MAX		65534
#define VS_BUILD_ID_MAX		20

struct vs_chunk_hdr {
	uint32_t flags;
	uint32_t nr_records;
	uint32_t comp_len;
	uint32_t raw_len;
	uint32_t data_crc;
	uint64_t t_min, t_max;	/* UINT64_MAX, 0 when no record has a time */
};

/* Field types of the record table. */
enum vs_field_type {
	VS_F_U8,
	VS_F_U16,
	VS_F_U32,
	VS_F_U64,
	VS_F_I64,
	VS_F_TIME,		/* u64 ns; counts for the chunk's time range */
	VS_F_STR,		/* u16 length, bytes, NUL */
	VS_F_BUILD_ID,		/* u8 length (<= 20), bytes */
	VS_F_U16_ARRAY,		/* u32 count, count x u16 */
	VS_F_U64_ARRAY,		/* u32 count, count x u64 */
	VS_F_VALUES,		/* u32 count, count x (u16 event, u64 value) */
};

/**
 * struct vs_field - one field of a record kind, in file order
 * @name: its key in `varscope script` output (text and JSON)
 * @type: enum vs_field_type
 * @off: offsetof(struct vs_record, <member>)
 * @count_off: arrays: offset of the u32 count; build-id: of the u8 length
 * @cond: when non-zero, the field is present only if the u32 at @cond_off
 *        has one of these bits (the optional sample fields)
 * @cond_off: see @cond
 * @hex: printed in hexadecimal in text output (addresses, flags)
 */
struct vs_field {
	const char *name;
	uint8_t type;
	bool hex;
	uint16_t off;
	uint16_t count_off;
	uint32_t cond;
	uint16_t cond_off;
};

/**
 * struct vs_kind_desc - a record kind
 * @kind: enum vs_record_kind
 * @name: "task", "sample", ...
 * @context: records that give meaning to others (catalog, symbols, comm,
 *           mmap, epoch, meta...): vs_reader_seek_time() still delivers
 *           them from the chunks it skips
 * @fields: the body, in file order
 * @nr_fields: number of @fields
 */
struct vs_kind_desc {
	uint16_t kind;
	const char *name;
	bool context;
	const struct vs_field *fields;
	unsigned int nr_fields;
};

/**
 * vs_kind_desc - the description of @kind, or NULL when it is unknown
 */
const struct vs_kind_desc *vs_kind_desc(uint16_t kind);

/**
 * vs_record_encoded_size - body size of @rec in bytes (without the 6-byte
 * record header); 0 for an unknown kind
 */
size_t vs_record_encoded_size(const struct vs_record *rec);

/**
 * vs_record_encode - write @rec's body to @buf (vs_record_encoded_size()
 * bytes) and widen [*t_min, *t_max] with its time fields
 */
void vs_record_encode(const struct vs_record *rec, uint8_t *buf,
		      uint64_t *t_min, uint64_t *t_max);

/**
 * vs_record_time_span - widen [*@t_min, *@t_max] with the time fields of
 * @rec (a known kind; VS_REC_TASK for a packed task), as the writer does
 * for its chunk header
 */
void vs_record_time_span(const struct vs_record *rec, uint64_t *t_min,
			 uint64_t *t_max);

/**
 * vs_record_decode - decode a body of @size bytes into @rec
 * @scratch: aligned memory for the arrays, at least 2 * @size + 16 bytes
 *
 * Returns NULL, or what is wrong ("string without NUL", ...).  Bytes after
 * the known fields are ignored (fields a newer minor version appended).
 */
const char *vs_record_decode(uint16_t kind, const uint8_t *body, size_t size,
			     struct vs_record *rec, void *scratch);

/* Field access for printers: the address of field @f inside @rec. */
static inline const void *vs_field_ptr(const struct vs_record *rec,
				       const struct vs_field *f)
{
	return (const char *)rec + f->off;
}

/**
 * vs_field_u64 - the value of a scalar field (VS_F_U8 ... VS_F_TIME) of
 * @rec, widened; VS_F_I64 comes back as its two's complement
 */
uint64_t vs_field_u64(const struct vs_record *rec, const struct vs_field *f);

/* Whether optional field @f is present in @rec. */
static inline bool vs_field_present(const struct vs_record *rec,
				    const struct vs_field *f)
{
	uint32_t v;

	if (!f->cond)
		return true;
	memcpy(&v, (const char *)rec + f->cond_off, sizeof(v));
	return v & f->cond;
}

/* Array fields: the element count. */
static inline uint32_t vs_field_count(const struct vs_record *rec,
				      const struct vs_field *f)
{
	uint32_t n;

	memcpy(&n, (const char *)rec + f->count_off, sizeof(n));
	return n;
}

/* Little-endian stores and loads at any alignment. */
static inline void vs_put16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, 2);
}

static inline void vs_put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, 4);
}

static inline void vs_put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, 8);
}

static inline uint16_t vs_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static inline uint32_t vs_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static inline uint64_t vs_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/**
 * vs_chunk_hdr_encode - the 48 bytes of a chunk header, CRC included
 */
void vs_chunk_hdr_encode(const struct vs_chunk_hdr *h, uint8_t *buf);

/**
 * vs_chunk_hdr_decode - parse 48 bytes; NULL or what is wrong
 */
const char *vs_chunk_hdr_decode(const uint8_t *buf, struct vs_chunk_hdr *h);

/**
 * vs_file_hdr_encode - the file header of @h into @buf (VS_FILE_HDR_MAX
 * bytes); returns its length, CRC included
 */
size_t vs_file_hdr_encode(const struct vs_header *h, uint8_t *buf);

/**
 * vs_file_hdr_prefix - check the first VS_FILE_HDR_PREFIX bytes (magic,
 * major version, header length) of which @avail are there
 * @where: set to the byte offset the error is about
 *
 * Returns NULL with *@major and *@len set, or what is wrong.
 */
const char *vs_file_hdr_prefix(const uint8_t *buf, size_t avail,
			       uint16_t *major, uint32_t *len, size_t *where);

/**
 * vs_file_hdr_decode - parse a whole header of @len bytes whose prefix
 * passed vs_file_hdr_prefix(); strings point into @buf
 * @where: set to the byte offset the error is about
 *
 * Returns NULL, or what is wrong.
 */
const char *vs_file_hdr_decode(const uint8_t *buf, size_t len,
			       struct vs_header *h, size_t *where);

#endif /* VS_CORE_TRACE_CODEC_H */
