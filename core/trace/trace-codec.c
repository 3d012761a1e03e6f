// SPDX-License-Identifier: MIT
/*
 * trace-codec.c - the one table of record layouts, and the encoder and
 * decoder that walk it.  Adding a record kind, or appending a field to
 * one, is a change to this table (and to the format specification).
 */
#include <stdlib.h>
#include <zlib.h>

#include "core/trace/trace-codec.h"

#define R(member)	offsetof(struct vs_record, member)

#define FLD(n, t, m)		{ .name = (n), .type = (t), .off = R(m) }
#define ARR(n, t, m, cnt)	{ .name = (n), .type = (t), .off = R(m), \
				  .count_off = R(cnt) }
#define HEX(n, t, m)		{ .name = (n), .type = (t), .off = R(m), \
				  .hex = true }
#define OPT(n, t, m, bit, fl)	{ .name = (n), .type = (t), .off = R(m), \
				  .cond = (bit), .cond_off = R(fl) }

static const struct vs_field event_def_fields[] = {
	FLD("id", VS_F_U16, event_def.id),
	FLD("parent", VS_F_U16, event_def.parent),
	FLD("group", VS_F_U8, event_def.group),
	FLD("name", VS_F_STR, event_def.name),
	FLD("unit", VS_F_STR, event_def.unit),
};

static const struct vs_field task_fields[] = {
	FLD("id", VS_F_U64, task.id),
	FLD("type", VS_F_U32, task.type),
	FLD("pid", VS_F_U32, task.pid),
	FLD("tid", VS_F_U32, task.tid),
	FLD("cpu", VS_F_U32, task.cpu),
	FLD("epoch", VS_F_U32, task.epoch),
	HEX("flags", VS_F_U32, task.flags),
	FLD("start_ns", VS_F_TIME, task.start),
	FLD("end_ns", VS_F_TIME, task.end),
	ARR("values", VS_F_VALUES, task.values, task.nr_values),
};

static const struct vs_field sample_fields[] = {
	FLD("time_ns", VS_F_TIME, sample.time),
	FLD("pid", VS_F_U32, sample.pid),
	FLD("tid", VS_F_U32, sample.tid),
	FLD("cpu", VS_F_U32, sample.cpu),
	HEX("flags", VS_F_U32, sample.flags),
	HEX("ip", VS_F_U64, sample.ip),
	FLD("period", VS_F_U64, sample.period),
	{ .name = "addr", .type = VS_F_U64, .off = R(sample.addr), .hex = true,
	  .cond = VS_SAMPLE_ADDR, .cond_off = R(sample.flags) },
	OPT("weight", VS_F_U64, sample.weight, VS_SAMPLE_WEIGHT, sample.flags),
	OPT("data_src", VS_F_U64, sample.data_src, VS_SAMPLE_DATA_SRC,
	    sample.flags),
	{ .name = "callchain", .type = VS_F_U64_ARRAY, .off = R(sample.callchain),
	  .count_off = R(sample.nr_callchain), .hex = true },
	{ .name = "regs_mask", .type = VS_F_U64, .off = R(sample.regs_mask),
	  .hex = true, .cond = VS_SAMPLE_USER_STACK,
	  .cond_off = R(sample.flags) },
	{ .name = "regs", .type = VS_F_U64_ARRAY, .off = R(sample.regs),
	  .count_off = R(sample.nr_regs), .hex = true,
	  .cond = VS_SAMPLE_USER_STACK, .cond_off = R(sample.flags) },
	{ .name = "stack", .type = VS_F_U64_ARRAY, .off = R(sample.stack),
	  .count_off = R(sample.nr_stack), .hex = true,
	  .cond = VS_SAMPLE_USER_STACK, .cond_off = R(sample.flags) },
};

static const struct vs_field syscall_fields[] = {
	FLD("time_ns", VS_F_TIME, syscall.time),
	FLD("tid", VS_F_U32, syscall.tid),
	FLD("cpu", VS_F_U32, syscall.cpu),
	FLD("nr", VS_F_U16, syscall.nr),
	FLD("dir", VS_F_U8, syscall.dir),
	FLD("ret", VS_F_I64, syscall.ret),
};

static const struct vs_field func_fields[] = {
	FLD("time_ns", VS_F_TIME, func.time),
	FLD("tid", VS_F_U32, func.tid),
	FLD("cpu", VS_F_U32, func.cpu),
	FLD("symbol", VS_F_U32, func.symbol),
	FLD("dir", VS_F_U8, func.dir),
};

static const struct vs_field symbol_def_fields[] = {
	FLD("id", VS_F_U32, symbol_def.id),
	HEX("addr", VS_F_U64, symbol_def.addr),
	FLD("name", VS_F_STR, symbol_def.name),
	FLD("binary", VS_F_STR, symbol_def.binary),
};

static const struct vs_field comm_fields[] = {
	FLD("time_ns", VS_F_TIME, comm.time),
	FLD("pid", VS_F_U32, comm.pid),
	FLD("tid", VS_F_U32, comm.tid),
	FLD("exec", VS_F_U8, comm.exec),
	FLD("comm", VS_F_STR, comm.comm),
};

static const struct vs_field process_fields[] = {
	FLD("time_ns", VS_F_TIME, process.time),
	FLD("what", VS_F_U8, process.what),
	FLD("pid", VS_F_U32, process.pid),
	FLD("ppid", VS_F_U32, process.ppid),
	FLD("tid", VS_F_U32, process.tid),
	FLD("ptid", VS_F_U32, process.ptid),
};

static const struct vs_field mmap_fields[] = {
	FLD("time_ns", VS_F_TIME, mmap.time),
	FLD("pid", VS_F_U32, mmap.pid),
	FLD("tid", VS_F_U32, mmap.tid),
	HEX("start", VS_F_U64, mmap.start),
	HEX("len", VS_F_U64, mmap.len),
	HEX("pgoff", VS_F_U64, mmap.pgoff),
	HEX("prot", VS_F_U32, mmap.prot),
	HEX("flags", VS_F_U32, mmap.flags),
	ARR("build_id", VS_F_BUILD_ID, mmap.build_id, mmap.build_id_len),
	FLD("filename", VS_F_STR, mmap.filename),
};

static const struct vs_field epoch_fields[] = {
	FLD("time_ns", VS_F_TIME, epoch.time),
	FLD("epoch", VS_F_U32, epoch.epoch),
	ARR("events", VS_F_U16_ARRAY, epoch.events, epoch.nr_events),
};

static const struct vs_field lost_fields[] = {
	FLD("time_ns", VS_F_TIME, lost.time),
	FLD("tid", VS_F_U32, lost.tid),
	FLD("cpu", VS_F_U32, lost.cpu),
	FLD("what", VS_F_U32, lost.what),
	FLD("count", VS_F_U64, lost.count),
};

static const struct vs_field segment_fields[] = {
	FLD("time_ns", VS_F_TIME, segment.time),
	FLD("number", VS_F_U32, segment.number),
	FLD("label", VS_F_STR, segment.label),
};

static const struct vs_field meta_fields[] = {
	FLD("key", VS_F_STR, meta.key),
	FLD("value", VS_F_STR, meta.value),
};

static const struct vs_field attach_fields[] = {
	FLD("time_ns", VS_F_TIME, attach.time),
	FLD("tid", VS_F_U32, attach.tid),
	FLD("what", VS_F_U8, attach.what),
	FLD("task_id", VS_F_U64, attach.task_id),
};

static const struct vs_field wakeup_fields[] = {
	FLD("time_ns", VS_F_TIME, wakeup.time),
	FLD("waker_tid", VS_F_U32, wakeup.waker_tid),
	FLD("wakee_tid", VS_F_U32, wakeup.wakee_tid),
	FLD("cpu", VS_F_U32, wakeup.cpu),
};

static const struct vs_field switch_fields[] = {
	FLD("time_ns", VS_F_TIME, switch_.time),
	FLD("tid", VS_F_U32, switch_.tid),
	FLD("cpu", VS_F_U32, switch_.cpu),
	FLD("out", VS_F_U8, switch_.out),
	FLD("preempt", VS_F_U8, switch_.preempt),
};

static const struct vs_field type_name_fields[] = {
	FLD("type", VS_F_U32, type_name.type),
	FLD("name", VS_F_STR, type_name.name),
};

static const struct vs_field ran_instead_fields[] = {
	FLD("task_id", VS_F_U64, ran_instead.task_id),
	FLD("pid", VS_F_U32, ran_instead.pid),
	FLD("tid", VS_F_U32, ran_instead.tid),
	FLD("comm", VS_F_STR, ran_instead.comm),
	FLD("time_ns", VS_F_U64, ran_instead.time_ns),
};

static const struct vs_field sig_func_fields[] = {
	FLD("id", VS_F_U32, sig_func.id),
	FLD("executions", VS_F_U32, sig_func.executions),
	FLD("mean_ns", VS_F_U64, sig_func.mean_ns),
	FLD("name", VS_F_STR, sig_func.name),
};

static const struct vs_field sig_episode_fields[] = {
	FLD("func", VS_F_U32, sig_episode.func),
	FLD("support", VS_F_U32, sig_episode.support),
	ARR("syscalls", VS_F_U16_ARRAY, sig_episode.syscalls, sig_episode.len),
};

#define KIND(k, n, ctx, f) \
	[k] = { .kind = (k), .name = (n), .context = (ctx), .fields = (f), \
		.nr_fields = sizeof(f) / sizeof((f)[0]) }

/* Indexed by kind; holes have no name. */
static const struct vs_kind_desc kinds[] = {
	KIND(VS_REC_EVENT_DEF, "event_def", true, event_def_fields),
	KIND(VS_REC_TASK, "task", false, task_fields),
	KIND(VS_REC_SAMPLE, "sample", false, sample_fields),
	KIND(VS_REC_SYSCALL, "syscall", false, syscall_fields),
	KIND(VS_REC_FUNC, "func", false, func_fields),
	KIND(VS_REC_SYMBOL_DEF, "symbol_def", true, symbol_def_fields),
	KIND(VS_REC_COMM, "comm", true, comm_fields),
	KIND(VS_REC_PROCESS, "process", true, process_fields),
	KIND(VS_REC_MMAP, "mmap", true, mmap_fields),
	KIND(VS_REC_EPOCH, "epoch", true, epoch_fields),
	KIND(VS_REC_LOST, "lost", false, lost_fields),
	KIND(VS_REC_SEGMENT, "segment", true, segment_fields),
	KIND(VS_REC_META, "meta", true, meta_fields),
	KIND(VS_REC_ATTACH, "attach", false, attach_fields),
	KIND(VS_REC_WAKEUP, "wakeup", false, wakeup_fields),
	KIND(VS_REC_SWITCH, "switch", false, switch_fields),
	KIND(VS_REC_TYPE_NAME, "type_name", true, type_name_fields),
	KIND(VS_REC_RAN_INSTEAD, "ran_instead", false, ran_instead_fields),
	KIND(VS_REC_SIG_FUNC, "sig_func", true, sig_func_fields),
	KIND(VS_REC_SIG_EPISODE, "sig_episode", true, sig_episode_fields),
};

#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

const struct vs_kind_desc *vs_kind_desc(uint16_t kind)
{
	if (kind >= NR_KINDS || !kinds[kind].name)
		return NULL;
	return &kinds[kind];
}

const char *vs_record_kind_name(uint16_t kind)
{
	const struct vs_kind_desc *d = vs_kind_desc(kind);

	return d ? d->name : "unknown";
}

static const char *const group_names[VS_GROUP__MAX] = {
	[VS_GROUP_KERNEL]	= "KERNEL",
	[VS_GROUP_SOFTWARE]	= "SOFTWARE",
	[VS_GROUP_CYCLE]	= "CYCLE",
	[VS_GROUP_INST]		= "INST",
	[VS_GROUP_CACHE]	= "CACHE",
	[VS_GROUP_UOP]		= "UOP",
	[VS_GROUP_OTHER]	= "OTHER",
	[VS_GROUP_FUNC]		= "FUNC",
};

const char *vs_group_name(uint8_t group)
{
	return group < VS_GROUP__MAX ? group_names[group] : "UNKNOWN";
}

int vs_group_from_name(const char *name)
{
	int i;

	for (i = 0; i < VS_GROUP__MAX; i++)
		if (!strcasecmp(name, group_names[i]))
			return i;
	return -1;
}

/* --- encoding --------------------------------------------------------- */

static const char *str_of(const void *p)
{
	const char *s;

	memcpy(&s, p, sizeof(s));
	return s ? s : "";
}

static size_t str_len(const void *p)
{
	size_t n = strlen(str_of(p));

	return n > VS_STR_MAX ? VS_STR_MAX : n;
}

static const void *array_of(const void *p)
{
	const void *a;

	memcpy(&a, p, sizeof(a));
	return a;
}

/* Byte width of scalar field types; 0 for the others. */
static unsigned int scalar_width(uint8_t type)
{
	switch (type) {
	case VS_F_U8:
		return 1;
	case VS_F_U16:
		return 2;
	case VS_F_U32:
		return 4;
	case VS_F_U64:
	case VS_F_I64:
	case VS_F_TIME:
		return 8;
	}
	return 0;
}

uint64_t vs_field_u64(const struct vs_record *rec, const struct vs_field *f)
{
	const void *p = vs_field_ptr(rec, f);
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (scalar_width(f->type)) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

static void set_field_u64(struct vs_record *rec, const struct vs_field *f,
			  uint64_t v)
{
	void *p = (char *)rec + f->off;
	uint8_t v8 = v;
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (scalar_width(f->type)) {
	case 1:
		memcpy(p, &v8, 1);
		return;
	case 2:
		memcpy(p, &v16, 2);
		return;
	case 4:
		memcpy(p, &v32, 4);
		return;
	}
	memcpy(p, &v, 8);
}

static size_t field_size(const struct vs_record *rec, const struct vs_field *f)
{
	const void *p = vs_field_ptr(rec, f);

	if (!vs_field_present(rec, f))
		return 0;
	switch (f->type) {
	case VS_F_STR:
		return 2 + str_len(p) + 1;
	case VS_F_BUILD_ID: {
		uint8_t n = *((const uint8_t *)rec + f->count_off);

		return 1 + (n > VS_BUILD_ID_MAX ? VS_BUILD_ID_MAX : n);
	}
	case VS_F_U16_ARRAY:
		return 4 + 2 * (size_t)vs_field_count(rec, f);
	case VS_F_U64_ARRAY:
		return 4 + 8 * (size_t)vs_field_count(rec, f);
	case VS_F_VALUES:
		return 4 + 10 * (size_t)vs_field_count(rec, f);
	}
	return scalar_width(f->type);
}

size_t vs_record_encoded_size(const struct vs_record *rec)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	size_t size = 0;
	unsigned int i;

	if (!d)
		return 0;
	for (i = 0; i < d->nr_fields; i++)
		size += field_size(rec, &d->fields[i]);
	return size;
}

void vs_record_time_span(const struct vs_record *rec, uint64_t *t_min,
			 uint64_t *t_max)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	unsigned int i;
	uint64_t v;

	for (i = 0; d && i < d->nr_fields; i++) {
		if (d->fields[i].type != VS_F_TIME ||
		    !vs_field_present(rec, &d->fields[i]))
			continue;
		v = vs_field_u64(rec, &d->fields[i]);
		if (v < *t_min)
			*t_min = v;
		if (v > *t_max)
			*t_max = v;
	}
}

static uint8_t *encode_field(const struct vs_record *rec,
			     const struct vs_field *f, uint8_t *b,
			     uint64_t *t_min, uint64_t *t_max)
{
	const uint8_t *p = vs_field_ptr(rec, f);
	unsigned int i, w = scalar_width(f->type);
	uint32_t n;
	size_t len;

	if (!vs_field_present(rec, f))
		return b;
	if (w) {
		uint64_t v = vs_field_u64(rec, f);

		if (f->type == VS_F_TIME) {
			if (v < *t_min)
				*t_min = v;
			if (v > *t_max)
				*t_max = v;
		}
		for (i = 0; i < w; i++, v >>= 8)
			b[i] = v;
		return b + w;
	}
	switch (f->type) {
	case VS_F_STR:
		len = str_len(p);
		vs_put16(b, len);
		memcpy(b + 2, str_of(p), len);
		b[2 + len] = 0;
		return b + 3 + len;
	case VS_F_BUILD_ID:
		n = *((const uint8_t *)rec + f->count_off);
		if (n > VS_BUILD_ID_MAX)
			n = VS_BUILD_ID_MAX;
		*b = n;
		memcpy(b + 1, p, n);
		return b + 1 + n;
	case VS_F_U16_ARRAY: {
		const uint16_t *a = array_of(p);

		n = vs_field_count(rec, f);
		vs_put32(b, n);
		for (i = 0, b += 4; i < n; i++, b += 2)
			vs_put16(b, a[i]);
		return b;
	}
	case VS_F_U64_ARRAY: {
		const uint64_t *a = array_of(p);

		n = vs_field_count(rec, f);
		vs_put32(b, n);
		for (i = 0, b += 4; i < n; i++, b += 8)
			vs_put64(b, a[i]);
		return b;
	}
	case VS_F_VALUES: {
		const struct vs_value *a = array_of(p);

		n = vs_field_count(rec, f);
		vs_put32(b, n);
		for (i = 0, b += 4; i < n; i++, b += 10) {
			vs_put16(b, a[i].event);
			vs_put64(b + 2, a[i].value);
		}
		return b;
	}
	}
	return b;
}

void vs_record_encode(const struct vs_record *rec, uint8_t *buf,
		      uint64_t *t_min, uint64_t *t_max)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	unsigned int i;

	for (i = 0; d && i < d->nr_fields; i++)
		buf = encode_field(rec, &d->fields[i], buf, t_min, t_max);
}

/* --- decoding --------------------------------------------------------- */

struct cursor {
	const uint8_t *p, *end;
	uint8_t *scratch;
};

static bool need(struct cursor *c, size_t n)
{
	return (size_t)(c->end - c->p) >= n;
}

static void set_ptr(struct vs_record *rec, const struct vs_field *f,
		    const void *ptr)
{
	memcpy((char *)rec + f->off, &ptr, sizeof(ptr));
}

static const char *decode_array(struct vs_record *rec, const struct vs_field *f,
				struct cursor *c)
{
	size_t elem = f->type == VS_F_U16_ARRAY ? 2 :
		      f->type == VS_F_U64_ARRAY ? 8 : 10;
	uint32_t n, i;

	if (!need(c, 4))
		return "array count overruns its record";
	n = vs_get32(c->p);
	c->p += 4;
	if ((size_t)(c->end - c->p) / elem < n)
		return "array count overruns its record";
	memcpy((char *)rec + f->count_off, &n, sizeof(n));
	if (f->type == VS_F_U16_ARRAY) {
		uint16_t *a = (uint16_t *)c->scratch;

		for (i = 0; i < n; i++, c->p += 2)
			a[i] = vs_get16(c->p);
		set_ptr(rec, f, a);
		c->scratch += ((size_t)n * 2 + 7) & ~(size_t)7;
	} else if (f->type == VS_F_U64_ARRAY) {
		uint64_t *a = (uint64_t *)c->scratch;

		for (i = 0; i < n; i++, c->p += 8)
			a[i] = vs_get64(c->p);
		set_ptr(rec, f, a);
		c->scratch += (size_t)n * 8;
	} else {
		struct vs_value *a = (struct vs_value *)c->scratch;

		for (i = 0; i < n; i++, c->p += 10) {
			a[i].event = vs_get16(c->p);
			a[i].value = vs_get64(c->p + 2);
		}
		set_ptr(rec, f, a);
		c->scratch += (size_t)n * sizeof(*a);
	}
	return NULL;
}

static const char *decode_field(struct vs_record *rec, const struct vs_field *f,
				struct cursor *c)
{
	uint8_t *p = (uint8_t *)rec + f->off;
	unsigned int i, w = scalar_width(f->type);
	uint64_t v = 0;
	size_t len;

	if (!vs_field_present(rec, f))
		return NULL;
	if (w) {
		if (!need(c, w))
			return "record too short";
		for (i = 0; i < w; i++)
			v |= (uint64_t)c->p[i] << (8 * i);
		set_field_u64(rec, f, v);
		c->p += w;
		return NULL;
	}
	switch (f->type) {
	case VS_F_STR:
		if (!need(c, 2))
			return "record too short";
		len = vs_get16(c->p);
		if (len > VS_STR_MAX || !need(c, 2 + len + 1))
			return "string overruns its record";
		if (c->p[2 + len] != 0)
			return "string without NUL";
		set_ptr(rec, f, c->p + 2);
		c->p += 3 + len;
		return NULL;
	case VS_F_BUILD_ID:
		if (!need(c, 1))
			return "record too short";
		len = *c->p;
		if (len > VS_BUILD_ID_MAX)
			return "build-id too long";
		if (!need(c, 1 + len))
			return "build-id overruns its record";
		*((uint8_t *)rec + f->count_off) = len;
		memset(p, 0, VS_BUILD_ID_MAX);
		memcpy(p, c->p + 1, len);
		c->p += 1 + len;
		return NULL;
	case VS_F_U16_ARRAY:
	case VS_F_U64_ARRAY:
	case VS_F_VALUES:
		return decode_array(rec, f, c);
	}
	return "bad field type";
}

const char *vs_record_decode(uint16_t kind, const uint8_t *body, size_t size,
			     struct vs_record *rec, void *scratch)
{
	const struct vs_kind_desc *d = vs_kind_desc(kind);
	struct cursor c = { body, body + size, scratch };
	const char *err;
	unsigned int i;

	memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	for (i = 0; d && i < d->nr_fields; i++) {
		err = decode_field(rec, &d->fields[i], &c);
		if (err)
			return err;
	}
	return NULL;
}

/* --- chunk header ----------------------------------------------------- */

void vs_chunk_hdr_encode(const struct vs_chunk_hdr *h, uint8_t *buf)
{
	vs_put32(buf + 0, VS_CHUNK_MAGIC);
	vs_put32(buf + 4, h->flags);
	vs_put32(buf + 8, h->nr_records);
	vs_put32(buf + 12, h->comp_len);
	vs_put32(buf + 16, h->raw_len);
	vs_put32(buf + 20, h->data_crc);
	vs_put64(buf + 24, h->t_min);
	vs_put64(buf + 32, h->t_max);
	vs_put32(buf + 40, 0);
	vs_put32(buf + 44, crc32(0, buf, 44));
}

const char *vs_chunk_hdr_decode(const uint8_t *buf, struct vs_chunk_hdr *h)
{
	if (vs_get32(buf) != VS_CHUNK_MAGIC)
		return "bad chunk magic";
#ifndef VS_FUZZING
	if (vs_get32(buf + 44) != crc32(0, buf, 44))
		return "chunk header CRC mismatch";
#endif
	h->flags = vs_get32(buf + 4);
	h->nr_records = vs_get32(buf + 8);
	h->comp_len = vs_get32(buf + 12);
	h->raw_len = vs_get32(buf + 16);
	h->data_crc = vs_get32(buf + 20);
	h->t_min = vs_get64(buf + 24);
	h->t_max = vs_get64(buf + 32);
	if (h->raw_len > VS_CHUNK_RAW_MAX)
		return "chunk raw length out of range";
	if (h->comp_len > compressBound(h->raw_len) + 64)
		return "chunk compressed length out of range";
	if (h->raw_len > (uint64_t)h->comp_len * VS_DEFLATE_MAX_RATIO + 64)
		return "chunk raw length out of range";
	if ((uint64_t)h->nr_records * VS_REC_HDR_LEN > h->raw_len)
		return "chunk record count out of range";
	if ((h->flags & VS_CHUNK_END) && (h->comp_len || h->raw_len))
		return "end chunk with data";
	return NULL;
}

/* --- file header ------------------------------------------------------ */

static uint8_t *put_str(uint8_t *b, const char *s)
{
	size_t len = strlen(s ? s : "");

	if (len > VS_FILE_HDR_MAX / 8)
		len = VS_FILE_HDR_MAX / 8;
	vs_put16(b, len);
	memcpy(b + 2, s ? s : "", len);
	b[2 + len] = 0;
	return b + 3 + len;
}

size_t vs_file_hdr_encode(const struct vs_header *h, uint8_t *buf)
{
	uint8_t *b = buf + VS_FILE_HDR_FIXED;
	size_t len;

	memcpy(buf, VS_FILE_MAGIC, VS_FILE_MAGIC_LEN);
	vs_put16(buf + 8, h->major);
	vs_put16(buf + 10, h->minor);
	vs_put32(buf + 16, h->clockid);
	vs_put32(buf + 20, 0);
	vs_put64(buf + 24, h->start_time);
	vs_put64(buf + 32, h->start_realtime);
	b = put_str(b, h->host);
	b = put_str(b, h->kernel);
	b = put_str(b, h->cpu_model);
	b = put_str(b, h->tool);
	len = b - buf + 4;
	vs_put32(buf + 12, len);
	vs_put32(b, crc32(0, buf, len - 4));
	return len;
}

static const char *get_str(const uint8_t **p, const uint8_t *end,
			   const char **s)
{
	size_t len;

	if (end - *p < 3)
		return "header string overruns the header";
	len = vs_get16(*p);
	if ((size_t)(end - *p) < 3 + len)
		return "header string overruns the header";
	if ((*p)[2 + len])
		return "header string without NUL";
	*s = (const char *)*p + 2;
	*p += 3 + len;
	return NULL;
}

const char *vs_file_hdr_prefix(const uint8_t *buf, size_t avail,
			       uint16_t *major, uint32_t *len, size_t *where)
{
	*where = 0;
	if (avail < VS_FILE_MAGIC_LEN || memcmp(buf, VS_FILE_MAGIC,
						VS_FILE_MAGIC_LEN))
		return "not a varscope trace (bad magic)";
	*where = avail;
	if (avail < VS_FILE_HDR_PREFIX)
		return "truncated header";
	*major = vs_get16(buf + 8);
	*where = 8;
	if (*major > VS_FORMAT_MAJOR)
		return "format version from the future";
	if (*major < 1)
		return "format version 0 is not supported";
	*len = vs_get32(buf + 12);
	*where = 12;
	if (*len < VS_FILE_HDR_FIXED + 4 * 3 + 4 || *len > VS_FILE_HDR_MAX)
		return "header length out of range";
	return NULL;
}

const char *vs_file_hdr_decode(const uint8_t *buf, size_t len,
			       struct vs_header *h, size_t *where)
{
	const uint8_t *p = buf + VS_FILE_HDR_FIXED, *end = buf + len - 4;
	const char *err;

	*where = len - 4;
#ifndef VS_FUZZING
	if (vs_get32(buf + len - 4) != crc32(0, buf, len - 4))
		return "header CRC mismatch";
#endif
	h->major = vs_get16(buf + 8);
	h->minor = vs_get16(buf + 10);
	h->clockid = vs_get32(buf + 16);
	h->start_time = vs_get64(buf + 24);
	h->start_realtime = vs_get64(buf + 32);
	if ((err = get_str(&p, end, &h->host)) ||
	    (err = get_str(&p, end, &h->kernel)) ||
	    (err = get_str(&p, end, &h->cpu_model)) ||
	    (err = get_str(&p, end, &h->tool))) {
		*where = p - buf;
		return err;
	}
	return NULL;
}
