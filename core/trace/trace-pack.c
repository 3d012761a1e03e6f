// SPDX-License-Identifier: MIT
/*
 * trace-pack.c - encode and decode packed task records (kind 17).
 *
 * A body is unsigned LEB128 varints: which of the six u32 fields changed
 * since the task before in the chunk and their new values, the id as a
 * zigzag delta, the start as a zigzag delta from the end of the task
 * before, the latency, then the values: first those of the task before's
 * events that come in the same order (positionally, no ids), then (id,
 * value) pairs for the rest.  A value is a code: 2v for the value v, or
 * 2d+1 for "the value d places earlier in this task" (the latency is
 * place 0), which catches a child event equal to its parent and a run
 * time equal to the latency.  Zero values take one byte and repeat well
 * for deflate.
 */
#include <errno.h>
#include <string.h>

#include "core/array.h"
#include "core/trace/trace-pack.h"
#include "core/trace/varint.h"

/* The u32 fields of a task, in the order of the changed mask's bits. */
static const size_t u32_fields[] = {
	offsetof(struct vs_task, type),
	offsetof(struct vs_task, pid),
	offsetof(struct vs_task, tid),
	offsetof(struct vs_task, cpu),
	offsetof(struct vs_task, epoch),
	offsetof(struct vs_task, flags),
};

#define NR_U32_FIELDS	(sizeof(u32_fields) / sizeof(u32_fields[0]))
#define CHANGED_ALL	((1u << NR_U32_FIELDS) - 1)

/* Back references are looked for among the last values of this size. */
#define BACKREF_MIN	64	/* smaller ones take one byte anyway */
#define BACKREF_WINDOW	16

static uint32_t *u32_field(struct vs_task *t, unsigned int i)
{
	return (uint32_t *)((char *)t + u32_fields[i]);
}

static uint32_t u32_of(const struct vs_task *t, unsigned int i)
{
	return *(const uint32_t *)((const char *)t + u32_fields[i]);
}

void vs_task_pack_reset(struct vs_task_pack *p)
{
	memset(&p->prev, 0, sizeof(p->prev));
	p->nr_ids = 0;
}

void vs_task_pack_release(struct vs_task_pack *p)
{
	free(p->ids);
	free(p->values);
	memset(p, 0, sizeof(*p));
}

/* --- encoding --------------------------------------------------------- */

size_t vs_task_pack_bound(const struct vs_task *t)
{
	/* mask, id, six u32, start, latency, two counts; per value an id
	 * and a 65-bit code */
	return 1 + 4 * VS_VARINT_MAX + NR_U32_FIELDS * 5 +
	       (size_t)t->nr_values * (3 + VS_VARINT_MAX);
}

/* The varint of the 65-bit number 2 * @payload + @backref. */
static uint8_t *put_code(uint8_t *b, uint64_t payload, bool backref)
{
	uint8_t first = (payload & 0x3f) << 1 | backref;

	payload >>= 6;
	if (!payload) {
		*b++ = first;
		return b;
	}
	*b++ = first | 0x80;
	return vs_put_varint(b, payload);
}

/* The large values of the task so far that a later one may refer to. */
struct backrefs {
	uint64_t value[BACKREF_WINDOW];
	uint32_t place[BACKREF_WINDOW];
	unsigned int nr;
};

static void remember(struct backrefs *br, uint64_t v, uint32_t place)
{
	br->value[br->nr % BACKREF_WINDOW] = v;
	br->place[br->nr % BACKREF_WINDOW] = place;
	br->nr++;
}

/* The code of @v at @place: a back reference when an earlier value equals it. */
static uint8_t *put_value(struct backrefs *br, uint8_t *b, uint64_t v,
			  uint32_t place)
{
	unsigned int i, n = br->nr < BACKREF_WINDOW ? br->nr : BACKREF_WINDOW;

	if (v < BACKREF_MIN)
		return put_code(b, v, false);
	for (i = 0; i < n; i++)
		if (br->value[i] == v)
			return put_code(b, place - br->place[i], true);
	remember(br, v, place);
	return put_code(b, v, false);
}

int vs_task_pack_encode(struct vs_task_pack *p, const struct vs_task *t,
			uint8_t *buf, size_t *size)
{
	uint64_t latency = t->end - t->start;
	struct backrefs br = { .nr = 0 };
	uint32_t i, same = 0, changed = 0;
	uint8_t *b;

	if (!vs_task_packable(t) ||
	    ALLOC_GROW(p->ids, t->nr_values, p->alloc_ids)) {
		errno = vs_task_packable(t) ? ENOMEM : E2BIG;
		return -1;
	}
	for (i = 0; i < NR_U32_FIELDS; i++)
		if (u32_of(t, i) != u32_of(&p->prev, i))
			changed |= 1u << i;
	b = vs_put_varint(buf, changed);
	b = vs_put_varint(b, vs_zigzag(t->id - p->prev.id));
	for (i = 0; i < NR_U32_FIELDS; i++)
		if (changed & 1u << i)
			b = vs_put_varint(b, u32_of(t, i));
	b = vs_put_varint(b, vs_zigzag(t->start - p->prev.end));
	b = vs_put_varint(b, latency);

	while (same < t->nr_values && same < p->nr_ids &&
	       t->values[same].event == p->ids[same])
		same++;
	remember(&br, latency, 0);
	b = vs_put_varint(b, same);
	for (i = 0; i < same; i++)
		b = put_value(&br, b, t->values[i].value, i + 1);
	b = vs_put_varint(b, t->nr_values - same);
	for (i = same; i < t->nr_values; i++) {
		b = vs_put_varint(b, t->values[i].event);
		b = put_value(&br, b, t->values[i].value, i + 1);
	}
	*size = b - buf;
	return 0;
}

void vs_task_pack_commit(struct vs_task_pack *p, const struct vs_task *t)
{
	uint32_t i;

	p->prev = *t;
	p->prev.values = NULL;
	p->prev.nr_values = 0;
	for (i = 0; i < t->nr_values; i++)
		p->ids[i] = t->values[i].event;
	p->nr_ids = t->nr_values;
}

/* --- decoding --------------------------------------------------------- */

struct cursor {
	const uint8_t *p, *end;
};

static const char *get_varint(struct cursor *c, uint64_t *v)
{
	unsigned int shift = 0;
	uint8_t byte;

	*v = 0;
	do {
		if (c->p == c->end)
			return "varint overruns its record";
		byte = *c->p++;
		if (shift == 63 && byte > 1)
			return "varint out of range";
		*v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	return NULL;
}

static const char *get_u32(struct cursor *c, uint32_t *v)
{
	const char *err;
	uint64_t x;

	if ((err = get_varint(c, &x)))
		return err;
	if (x > UINT32_MAX)
		return "varint out of range";
	*v = x;
	return NULL;
}

/* A value code at @place of a task whose values so far are @latency, @v. */
static const char *get_value(struct cursor *c, uint64_t latency,
			     const struct vs_value *v, uint32_t place,
			     uint64_t *value)
{
	const char *err;
	uint64_t high = 0, payload;
	uint8_t first;

	if (c->p == c->end)
		return "varint overruns its record";
	first = *c->p++;
	if ((first & 0x80) && (err = get_varint(c, &high)))
		return err;
	if (high >> 58)
		return "varint out of range";
	payload = high << 6 | (first >> 1 & 0x3f);
	if (!(first & 1)) {
		*value = payload;
		return NULL;
	}
	if (!payload || payload > place)
		return "back reference out of range";
	*value = payload == place ? latency : v[place - payload - 1].value;
	return NULL;
}

const char *vs_task_pack_decode(struct vs_task_pack *p, const uint8_t *body,
				size_t size, struct vs_task *t)
{
	struct cursor c = { body, body + size };
	uint64_t changed, delta, latency, same, more, id;
	const char *err;
	uint32_t i;

	*t = p->prev;
	if ((err = get_varint(&c, &changed)))
		return err;
	if (changed & ~(uint64_t)CHANGED_ALL)
		return "unknown fields changed";
	if ((err = get_varint(&c, &delta)))
		return err;
	t->id = p->prev.id + vs_unzigzag(delta);
	for (i = 0; i < NR_U32_FIELDS; i++)
		if ((changed & 1u << i) && (err = get_u32(&c, u32_field(t, i))))
			return err;
	if ((err = get_varint(&c, &delta)) || (err = get_varint(&c, &latency)))
		return err;
	t->start = p->prev.end + vs_unzigzag(delta);
	t->end = t->start + latency;

	if ((err = get_varint(&c, &same)))
		return err;
	if (same > p->nr_ids)
		return "more values than the task before";
	if (same > (size_t)(c.end - c.p))
		return "record too short";
	/* room for one more: values is never NULL, as kind 2's are not */
	if (ALLOC_GROW(p->values, same + 1, p->alloc_values))
		return "out of memory";
	for (i = 0; i < same; i++) {
		p->values[i].event = p->ids[i];
		if ((err = get_value(&c, latency, p->values, i + 1,
				     &p->values[i].value)))
			return err;
	}
	if ((err = get_varint(&c, &more)))
		return err;
	if (more > VS_PACK_MAX_VALUES - same ||
	    more > (size_t)(c.end - c.p) / 2)
		return "value count overruns its record";
	if (ALLOC_GROW(p->values, same + more, p->alloc_values) ||
	    ALLOC_GROW(p->ids, same + more, p->alloc_ids))
		return "out of memory";
	for (i = same; i < same + more; i++) {
		if ((err = get_varint(&c, &id)))
			return err;
		if (id > UINT16_MAX)
			return "event id out of range";
		p->values[i].event = id;
		if ((err = get_value(&c, latency, p->values, i + 1,
				     &p->values[i].value)))
			return err;
	}
	t->nr_values = same + more;
	t->values = p->values;
	vs_task_pack_commit(p, t);
	return NULL;
}
