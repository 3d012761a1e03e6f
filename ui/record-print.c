// SPDX-License-Identifier: MIT
/*
 * record-print.c - text and JSON lines for trace records (varscope script).
 *
 * Both walk the record table of core/trace/trace-codec.c, so a new kind
 * or field prints without a change here.  Tasks get three extras: "type_name"
 * when their type has one, "latency_ns" (end - start) and their values
 * keyed by event name.
 */
#include <inttypes.h>
#include <string.h>

#include "ui/record-print.h"
#include "ui/json.h"
#include "core/trace/trace-codec.h"

static const void *field_array(const struct vs_record *rec,
			       const struct vs_field *f)
{
	const void *a;

	memcpy(&a, vs_field_ptr(rec, f), sizeof(a));
	return a;
}

/* The name of event @id, or "#ID" (in @buf) when it has no definition. */
static const char *event_name(char *buf, const struct vs_reader *r,
			      uint16_t id)
{
	const struct vs_event_def *e = vs_reader_event(r, id);

	if (e)
		return e->name;
	snprintf(buf, 16, "#%u", id);
	return buf;
}

/* The build-id of field @f in hex, in @buf of 2 * VS_BUILD_ID_MAX + 1. */
static const char *build_id_hex(char *buf, const struct vs_record *rec,
				const struct vs_field *f)
{
	const uint8_t *b = vs_field_ptr(rec, f);
	uint8_t i, n = *((const uint8_t *)rec + f->count_off);

	for (i = 0; i < n && i < VS_BUILD_ID_MAX; i++)
		sprintf(buf + 2 * i, "%02x", b[i]);
	buf[2 * i] = 0;
	return buf;
}

void vs_print_header_text(FILE *fp, const struct vs_header *h)
{
	fprintf(fp, "# varscope trace format %u.%u, written by %s\n",
		h->major, h->minor, h->tool);
	fprintf(fp, "# host %s, kernel %s, cpu %s\n", h->host, h->kernel,
		h->cpu_model);
	fprintf(fp, "# clock %u, start %" PRIu64 " ns, realtime %" PRIu64 " ns\n",
		h->clockid, h->start_time, h->start_realtime);
}

void vs_print_header_json(FILE *fp, const struct vs_header *h)
{
	struct json_out j;

	json_init(&j, fp);
	json_begin_object(&j);
	json_key(&j, "kind");
	json_string(&j, "header");
	json_key(&j, "major");
	json_u64(&j, h->major);
	json_key(&j, "minor");
	json_u64(&j, h->minor);
	json_key(&j, "host");
	json_string(&j, h->host);
	json_key(&j, "kernel");
	json_string(&j, h->kernel);
	json_key(&j, "cpu_model");
	json_string(&j, h->cpu_model);
	json_key(&j, "tool");
	json_string(&j, h->tool);
	json_key(&j, "clockid");
	json_u64(&j, h->clockid);
	json_key(&j, "start_ns");
	json_u64(&j, h->start_time);
	json_key(&j, "start_realtime_ns");
	json_u64(&j, h->start_realtime);
	json_end_object(&j);
	json_newline(&j);
}

/* --- text ------------------------------------------------------------- */

/*
 * The text form prints tens of millions of numbers for a large trace:
 * no printf on the way.
 */
static void put_str(FILE *fp, const char *s)
{
	fputs_unlocked(s, fp);
}

static void put_u64(FILE *fp, uint64_t v)
{
	char buf[20];

	fwrite_unlocked(buf, 1, json_fmt_u64(buf, v), fp);
}

/* @v right-aligned in @width columns, padded with @pad. */
static void put_u64_width(FILE *fp, uint64_t v, size_t width, char pad)
{
	char buf[20];
	size_t n = json_fmt_u64(buf, v);

	while (n < width--)
		putc_unlocked(pad, fp);
	fwrite_unlocked(buf, 1, n, fp);
}

/* As printf's %#llx: "0" for zero, "0x..." otherwise. */
static void put_hex(FILE *fp, uint64_t v)
{
	char buf[18], *p = buf + sizeof(buf);

	if (!v) {
		putc_unlocked('0', fp);
		return;
	}
	while (v) {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	}
	*--p = 'x';
	*--p = '0';
	fwrite_unlocked(p, 1, buf + sizeof(buf) - p, fp);
}

static void put_key(FILE *fp, const char *name)
{
	putc_unlocked(' ', fp);
	put_str(fp, name);
	putc_unlocked('=', fp);
}

static void put_number(FILE *fp, const struct vs_field *f, uint64_t v)
{
	if (f->hex)
		put_hex(fp, v);
	else
		put_u64(fp, v);
}

static void text_array(FILE *fp, const struct vs_reader *r,
		       const struct vs_record *rec, const struct vs_field *f)
{
	uint32_t i, n = vs_field_count(rec, f);
	const void *a = field_array(rec, f);
	char name[16];

	if (f->type == VS_F_VALUES) {
		const struct vs_value *v = a;

		for (i = 0; i < n; i++) {
			put_key(fp, event_name(name, r, v[i].event));
			put_u64(fp, v[i].value);
		}
		return;
	}
	put_key(fp, f->name);
	putc_unlocked('[', fp);
	for (i = 0; i < n; i++) {
		if (i)
			putc_unlocked(',', fp);
		put_number(fp, f, f->type == VS_F_U16_ARRAY ?
			   ((const uint16_t *)a)[i] : ((const uint64_t *)a)[i]);
	}
	putc_unlocked(']', fp);
}

static const struct vs_field *time_field(const struct vs_kind_desc *d)
{
	unsigned int i;

	for (i = 0; i < d->nr_fields; i++)
		if (d->fields[i].type == VS_F_TIME)
			return &d->fields[i];
	return NULL;
}

/* The name of task @rec's type, or NULL: type_name after the type. */
static const char *type_name(const struct vs_type_names *names,
			     const struct vs_record *rec,
			     const struct vs_field *f)
{
	if (rec->kind != VS_REC_TASK || !names || strcmp(f->name, "type"))
		return NULL;
	return vs_type_names_get(names, rec->task.type);
}

void vs_print_record_text(FILE *fp, const struct vs_reader *r,
			  const struct vs_type_names *names,
			  const struct vs_record *rec)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	const struct vs_field *f, *tf;
	char bid[2 * VS_BUILD_ID_MAX + 1];
	unsigned int i;
	size_t len;
	uint64_t v;

	if (!d)
		return;
	tf = time_field(d);
	if (tf) {
		v = vs_field_u64(rec, tf);
		put_u64_width(fp, v / 1000000000, 10, ' ');
		putc_unlocked('.', fp);
		put_u64_width(fp, v % 1000000000, 9, '0');
	} else {
		put_str(fp, "                   -");
	}
	putc_unlocked(' ', fp);
	put_str(fp, d->name);
	for (len = strlen(d->name); len < 11; len++)
		putc_unlocked(' ', fp);
	for (i = 0; i < d->nr_fields; i++) {
		f = &d->fields[i];
		if (!vs_field_present(rec, f))
			continue;
		switch (f->type) {
		case VS_F_STR:
			put_key(fp, f->name);
			json_put_string(fp, *(const char *const *)vs_field_ptr(rec, f));
			break;
		case VS_F_BUILD_ID:
			put_key(fp, f->name);
			put_str(fp, build_id_hex(bid, rec, f));
			break;
		case VS_F_I64:
			put_key(fp, f->name);
			v = vs_field_u64(rec, f);
			if ((int64_t)v < 0) {
				putc_unlocked('-', fp);
				v = -v;
			}
			put_u64(fp, v);
			break;
		case VS_F_U16_ARRAY:
		case VS_F_U64_ARRAY:
		case VS_F_VALUES:
			text_array(fp, r, rec, f);
			break;
		default:
			put_key(fp, f->name);
			put_number(fp, f, vs_field_u64(rec, f));
		}
		if (type_name(names, rec, f)) {
			put_key(fp, "type_name");
			json_put_string(fp, type_name(names, rec, f));
		}
		if (rec->kind == VS_REC_TASK && !strcmp(f->name, "end_ns")) {
			put_key(fp, "latency_ns");
			put_u64(fp, rec->task.end - rec->task.start);
		}
	}
	/* ran_instead=TID:COMM:NS,... (tid 0: the others) */
	for (i = 0; rec->kind == VS_REC_TASK && i < rec->nr_ran; i++) {
		const struct vs_ran_instead *ri = &rec->ran[i];

		if (i)
			putc_unlocked(',', fp);
		else
			put_key(fp, "ran_instead");
		put_u64(fp, ri->tid);
		putc_unlocked(':', fp);
		json_put_string(fp, ri->comm);
		putc_unlocked(':', fp);
		put_u64(fp, ri->time_ns);
	}
	putc_unlocked('\n', fp);
}

/* --- JSON ------------------------------------------------------------- */

static void json_array_field(struct json_out *j, const struct vs_reader *r,
			     const struct vs_record *rec,
			     const struct vs_field *f)
{
	uint32_t i, n = vs_field_count(rec, f);
	char name[16];

	if (f->type == VS_F_VALUES) {
		const struct vs_value *v = field_array(rec, f);

		json_begin_object(j);
		for (i = 0; i < n; i++) {
			json_key(j, event_name(name, r, v[i].event));
			json_u64(j, v[i].value);
		}
		json_end_object(j);
		return;
	}
	json_begin_array(j);
	for (i = 0; i < n; i++) {
		if (f->type == VS_F_U16_ARRAY)
			json_u64(j, ((const uint16_t *)field_array(rec, f))[i]);
		else
			json_u64(j, ((const uint64_t *)field_array(rec, f))[i]);
	}
	json_end_array(j);
}

void vs_print_record_json(FILE *fp, const struct vs_reader *r,
			  const struct vs_type_names *names,
			  const struct vs_record *rec)
{
	const struct vs_kind_desc *d = vs_kind_desc(rec->kind);
	const struct vs_field *f;
	char bid[2 * VS_BUILD_ID_MAX + 1];
	struct json_out j;
	unsigned int i;

	if (!d)
		return;
	json_init(&j, fp);
	json_begin_object(&j);
	json_key(&j, "kind");
	json_string(&j, d->name);
	for (i = 0; i < d->nr_fields; i++) {
		f = &d->fields[i];
		if (!vs_field_present(rec, f))
			continue;
		json_key(&j, f->name);
		switch (f->type) {
		case VS_F_STR:
			json_string(&j, *(const char *const *)vs_field_ptr(rec, f));
			break;
		case VS_F_BUILD_ID:
			json_string(&j, build_id_hex(bid, rec, f));
			break;
		case VS_F_I64:
			json_i64(&j, (int64_t)vs_field_u64(rec, f));
			break;
		case VS_F_U16_ARRAY:
		case VS_F_U64_ARRAY:
		case VS_F_VALUES:
			json_array_field(&j, r, rec, f);
			break;
		default:
			json_u64(&j, vs_field_u64(rec, f));
		}
		if (type_name(names, rec, f)) {
			json_key(&j, "type_name");
			json_string(&j, type_name(names, rec, f));
		}
		if (rec->kind == VS_REC_TASK && !strcmp(f->name, "end_ns")) {
			json_key(&j, "latency_ns");
			json_u64(&j, rec->task.end - rec->task.start);
		}
	}
	if (rec->kind == VS_REC_TASK && rec->nr_ran) {
		json_key(&j, "ran_instead");
		json_begin_array(&j);
		for (i = 0; i < rec->nr_ran; i++) {
			const struct vs_ran_instead *ri = &rec->ran[i];

			json_begin_object(&j);
			json_key(&j, "pid");
			json_u64(&j, ri->pid);
			json_key(&j, "tid");
			json_u64(&j, ri->tid);
			json_key(&j, "comm");
			json_string(&j, ri->comm);
			json_key(&j, "time_ns");
			json_u64(&j, ri->time_ns);
			json_end_object(&j);
		}
		json_end_array(&j);
	}
	json_end_object(&j);
	json_newline(&j);
}
