// SPDX-License-Identifier: MIT
/*
 * eh-frame.c - CFA rules from .eh_frame (DWARF call frame information as
 * the LSB's exception-frame format lays it out).
 */
#include <stdlib.h>
#include <string.h>

#include "core/array.h"
#include "core/eh-frame.h"
#include "core/sort.h"

#define MAX_REMEMBER	8

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;		/* DW_EH_PE_* of FDE addresses */
	size_t init, init_end;		/* initial instructions */
};

struct fde {
	uint64_t begin, end;
	size_t insn, insn_end;
	uint32_t cie;
};

struct vs_eh_frame {
	uint8_t *data;
	size_t size;
	uint64_t vaddr;			/* of the section */
	struct cie *cies;
	size_t nr_cies, cap_cies;
	size_t *cie_off;		/* section offset of each CIE */
	size_t cap_cie_off;
	struct fde *fdes;
	size_t nr_fdes, cap_fdes;
};

struct cursor {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t uleb(struct cursor *c)
{
	uint64_t v = 0;
	int shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t sleb(struct cursor *c)
{
	int64_t v = 0;
	int shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

static uint64_t fixed(struct cursor *c, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = 1;
		return 0;
	}
	memcpy(&v, c->p, n);
	c->p += n;
	return v;
}

/* A DW_EH_PE_* encoded pointer at @c, whose own address is @here. */
static uint64_t pointer(struct cursor *c, uint8_t enc, uint64_t here)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case 0x00: v = fixed(c, 8); break;
	case 0x01: v = uleb(c); break;
	case 0x02: v = fixed(c, 2); break;
	case 0x03: v = fixed(c, 4); break;
	case 0x04: v = fixed(c, 8); break;
	case 0x09: v = sleb(c); break;
	case 0x0a: v = (int16_t)fixed(c, 2); break;
	case 0x0b: v = (int32_t)fixed(c, 4); break;
	case 0x0c: v = fixed(c, 8); break;
	default: c->bad = 1; return 0;
	}
	if ((enc & 0x70) == 0x10)	/* pcrel */
		v += here;
	return v;
}

static int parse_cie(struct vs_eh_frame *eh, struct cursor *c, size_t off)
{
	struct cie cie = { .fde_enc = 0 };
	const char *aug;
	uint8_t version = fixed(c, 1);

	aug = (const char *)c->p;
	c->p += strnlen(aug, c->end - c->p) + 1;
	if (aug[0] != 'z')	/* no 'z': FDEs cannot be parsed blindly */
		return 0;
	cie.code_align = uleb(c);
	cie.data_align = sleb(c);
	if (version == 1)
		fixed(c, 1);
	else
		uleb(c);
	{
		uint64_t len = uleb(c);
		const uint8_t *after = c->p + len;
		const char *a;

		for (a = aug + 1; *a && !c->bad; a++) {
			if (*a == 'R') {
				cie.fde_enc = fixed(c, 1);
			} else if (*a == 'P') {
				uint8_t enc = fixed(c, 1);

				pointer(c, enc, 0);
			} else if (*a == 'L') {
				fixed(c, 1);
			}
		}
		c->p = after;
	}
	if (c->bad || c->p > c->end)
		return 0;
	cie.init = c->p - eh->data;
	cie.init_end = c->end - eh->data;
	if (vs_grow(&eh->cies, &eh->cap_cies, eh->nr_cies + 1,
		    sizeof(cie)) < 0 ||
	    vs_grow(&eh->cie_off, &eh->cap_cie_off, eh->nr_cies + 1,
		    sizeof(size_t)) < 0)
		return -1;
	eh->cie_off[eh->nr_cies] = off;
	eh->cies[eh->nr_cies++] = cie;
	return 0;
}

static int parse_fde(struct vs_eh_frame *eh, struct cursor *c,
		     size_t cie_at)
{
	struct fde fde;
	const struct cie *cie = NULL;
	size_t i;

	for (i = eh->nr_cies; i-- > 0;) {
		if (eh->cie_off[i] == cie_at) {
			cie = &eh->cies[i];
			break;
		}
	}
	if (!cie)
		return 0;
	fde.cie = i;
	fde.begin = pointer(c, cie->fde_enc,
			    eh->vaddr + (c->p - eh->data));
	fde.end = fde.begin + pointer(c, cie->fde_enc & 0x0f, 0);
	uleb(c);	/* augmentation data: every CIE kept is a 'z' one */
	if (c->bad)
		return 0;
	fde.insn = c->p - eh->data;
	fde.insn_end = c->end - eh->data;
	if (vs_grow(&eh->fdes, &eh->cap_fdes, eh->nr_fdes + 1,
		    sizeof(fde)) < 0)
		return -1;
	eh->fdes[eh->nr_fdes++] = fde;
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct fde *x = a, *y = b;

	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

struct vs_eh_frame *vs_eh_frame_load(Elf *elf)
{
	struct vs_eh_frame *eh;
	Elf_Scn *scn = NULL;
	Elf_Data *data = NULL;
	size_t shstrndx, off = 0;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".eh_frame") &&
		    sh.sh_type == SHT_PROGBITS) {
			data = elf_getdata(scn, NULL);
			break;
		}
	}
	if (!data || !data->d_buf || !data->d_size)
		return NULL;
	eh = calloc(1, sizeof(*eh));
	if (!eh)
		return NULL;
	eh->size = data->d_size;
	eh->vaddr = sh.sh_addr;
	eh->data = malloc(eh->size);
	if (!eh->data)
		goto fail;
	memcpy(eh->data, data->d_buf, eh->size);
	while (off + 8 <= eh->size) {
		struct cursor c = { .p = eh->data + off,
				    .end = eh->data + eh->size };
		uint64_t len = fixed(&c, 4);
		size_t id_at;
		uint32_t id;

		if (!len)
			break;
		if (len == 0xffffffff)
			len = fixed(&c, 8);
		id_at = c.p - eh->data;
		if (len > eh->size - id_at)
			break;
		c.end = c.p + len;
		id = fixed(&c, 4);
		if ((!id ? parse_cie(eh, &c, off) :
		     parse_fde(eh, &c, id_at - id)) < 0)
			goto fail;
		off = id_at + len;
	}
	vs_qsort(eh->fdes, eh->nr_fdes, sizeof(*eh->fdes), cmp_fde);
	return eh;
fail:
	vs_eh_frame_free(eh);
	return NULL;
}

void vs_eh_frame_free(struct vs_eh_frame *eh)
{
	if (!eh)
		return;
	free(eh->data);
	free(eh->cies);
	free(eh->cie_off);
	free(eh->fdes);
	free(eh);
}


/*
 * Run the instructions [p, end) from *loc; stop (return 1) when an
 * advance would pass @target.  Only the CFA and %rbp rules are kept, and
 * whether the return address is undefined.
 */
static int run(const struct cie *cie, struct cursor *c, uint64_t *loc,
	       uint64_t target, struct vs_cfa_rule *st,
	       struct vs_cfa_rule *saved, int *nsaved)
{
	while (c->p < c->end && !c->bad) {
		uint8_t op = *c->p++, low = op & 0x3f;
		uint64_t delta = 0;

		switch (op >> 6) {
		case 1:				/* advance_loc */
			delta = low;
			goto advance;
		case 2:				/* offset */
			delta = uleb(c);
			if (low == VS_DWARF_RBP) {
				st->rbp_saved = 1;
				st->rbp_off = delta * cie->data_align;
			}
			continue;
		case 3:				/* restore */
			if (low == VS_DWARF_RBP)
				st->rbp_saved = 0;
			continue;
		}
		switch (op) {
		case 0x00:			/* nop */
			break;
		case 0x01:			/* set_loc */
			c->bad = 1;
			break;
		case 0x02:
			delta = fixed(c, 1);
			goto advance;
		case 0x03:
			delta = fixed(c, 2);
			goto advance;
		case 0x04:
			delta = fixed(c, 4);
			goto advance;
		case 0x05: case 0x09: case 0x14:	/* reg, uleb */
		case 0x2f:
			uleb(c);
			uleb(c);
			break;
		case 0x07:			/* undefined */
			if (uleb(c) == VS_DWARF_RA)
				st->ra_undefined = 1;
			break;
		case 0x06: case 0x08:		/* reg */
			uleb(c);
			break;
		case 0x0a:			/* remember_state */
			if (*nsaved < MAX_REMEMBER)
				saved[(*nsaved)++] = *st;
			break;
		case 0x0b:			/* restore_state */
			if (*nsaved > 0)
				*st = saved[--(*nsaved)];
			break;
		case 0x0c:			/* def_cfa */
			st->reg = uleb(c);
			st->off = uleb(c);
			break;
		case 0x0d:			/* def_cfa_register */
			st->reg = uleb(c);
			break;
		case 0x0e:			/* def_cfa_offset */
			st->off = uleb(c);
			break;
		case 0x0f:			/* def_cfa_expression */
			st->reg = -1;
			c->p += uleb(c);
			break;
		case 0x10: case 0x16:		/* (val_)expression */
			uleb(c);
			c->p += uleb(c);
			break;
		case 0x11: case 0x15:		/* reg, sleb */
			uleb(c);
			sleb(c);
			break;
		case 0x12:			/* def_cfa_sf */
			st->reg = uleb(c);
			st->off = sleb(c) * cie->data_align;
			break;
		case 0x13:			/* def_cfa_offset_sf */
			st->off = sleb(c) * cie->data_align;
			break;
		case 0x2e:			/* GNU_args_size */
			uleb(c);
			break;
		default:
			c->bad = 1;
			break;
		}
		continue;
advance:
		*loc += delta * cie->code_align;
		if (*loc > target)
			return 1;
	}
	return 0;
}

int vs_eh_frame_rule(const struct vs_eh_frame *eh, uint64_t vaddr,
		     struct vs_cfa_rule *rule)
{
	struct vs_cfa_rule st = { .reg = -1 }, saved[MAX_REMEMBER];
	size_t lo = 0, hi = eh->nr_fdes, mid;
	const struct fde *f;
	const struct cie *cie;
	struct cursor c;
	uint64_t loc;
	int nsaved = 0;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (eh->fdes[mid].begin <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= eh->fdes[lo - 1].end)
		return -1;
	f = &eh->fdes[lo - 1];
	cie = &eh->cies[f->cie];
	loc = f->begin;
	c = (struct cursor){ .p = eh->data + cie->init,
			     .end = eh->data + cie->init_end };
	run(cie, &c, &loc, vaddr, &st, saved, &nsaved);
	c = (struct cursor){ .p = eh->data + f->insn,
			     .end = eh->data + f->insn_end };
	run(cie, &c, &loc, vaddr, &st, saved, &nsaved);
	if (c.bad || st.reg < 0)
		return -1;
	*rule = st;
	return 0;
}
