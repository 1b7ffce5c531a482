/* SPDX-License-Identifier: MIT */
/*
 * fuzz-qkind.c - the qdisc kinds' walkers (src/qkind/qkind.h) on arbitrary TCA_OPTIONS.
 * Input: byte 0 picks the kind (qkind_at, modulo the number of kinds); the rest is the
 * payload of TCA_OPTIONS as a kernel dump would hold it.
 *
 * The same payload also goes to the kind's class_rate, where it has one (htb: the
 * payload of a class's TCA_OPTIONS).
 *
 * Invariants: no crash; the audit's values are at most what it was given room for, each
 * with a key; a failed decode reports nothing; the words a decode spells, once they
 * have been through tc's encoding, are a fixed point (encode, decode and spell them
 * again and they are the same words).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netlink.h>

#include "qkind/qkind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define WORDS_MAX 512

static void fail(const char *what, const struct qkind *k, const char *words)
{
	fprintf(stderr, "fuzz-qkind: %s: %s \"%s\"\n", what, k->name, words);
	abort();
}

/* TCA_OPTIONS' payload for wires, laid out as the kernel would. */
static size_t lay_out(const struct qkind *k, const struct qkind_wire *w, unsigned n,
		      unsigned char *buf)
{
	size_t len = 0;

	if (k->layout == QLAYOUT_FIFO) {
		uint32_t limit = n ? (uint32_t)w[0].v : 0;

		memcpy(buf, &limit, sizeof(limit));
		return n ? sizeof(limit) : 0;
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned char v[8];
		size_t vl = qkind_wire_bytes(&w[i], v);
		struct nlattr h = {.nla_len = (uint16_t)(NLA_HDRLEN + vl),
				   .nla_type = w[i].attr->type};

		memset(buf + len, 0, NLA_ALIGN(NLA_HDRLEN + vl));
		memcpy(buf + len, &h, sizeof(h));
		memcpy(buf + len + NLA_HDRLEN, v, vl);
		len += NLA_ALIGN(NLA_HDRLEN + vl);
	}
	return len;
}

/* The decoded wires as words, space-separated. */
static void spell_all(const struct qkind *k, const struct qkind_wire *w, unsigned n, char *out,
		      size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		char word[64];
		int r;

		if (qkind_spell(w[i].attr, w[i].v, word, sizeof(word)) < 0)
			fail("decode returned a value it cannot spell", k, out);
		r = snprintf(out + used, len - used, "%s%s", i ? " " : "", word);
		if (r < 0 || (size_t)r >= len - used)
			fail("words longer than every attribute spelled", k, out);
		used += (size_t)r;
	}
}

/* words -> encode -> lay out -> decode -> words; -1 when encoding refuses them. */
static int rebuild(const struct qkind *k, const char *words, char *out, size_t len)
{
	char copy[WORDS_MAX], *argv[2 * QKIND_MAX_ATTRS + 2], *save = NULL, err[160];
	struct qkind_wire wire[QKIND_MAX_ATTRS], back[QKIND_MAX_ATTRS];
	_Alignas(4) unsigned char buf[QKIND_MAX_ATTRS * 12 + 8];
	unsigned n, nback;
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", words);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (argc == (int)(sizeof(argv) / sizeof(*argv)))
			fail("more words than attributes", k, words);
		argv[argc++] = w;
	}
	if (qkind_encode(k, argv, argc, wire, &n, err, sizeof(err)) < 0) {
		if (!memchr(err, '\0', sizeof(err)) || !err[0])
			fail("refusal without a message", k, words);
		return -1;
	}
	if (qkind_decode(k, buf, lay_out(k, wire, n, buf), back, &nback) < 0)
		fail("what encoding sent does not decode", k, words);
	spell_all(k, back, nback, out, len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t payload[4096 / sizeof(uint32_t)];
	struct value vals[8];
	struct qshown shown = {.v = vals, .max = 8};
	struct qkind_wire wire[QKIND_MAX_ATTRS];
	char first[WORDS_MAX], once[WORDS_MAX], twice[WORDS_MAX];
	const struct qkind *k;
	size_t nkinds = 0;
	unsigned n = 99;

	if (size < 1)
		return 0;
	while (qkind_at(nkinds))
		nkinds++;
	k = qkind_at(data[0] % nkinds);
	/* A kernel's attributes are 4-byte aligned: give the payload that alignment. */
	if (size - 1 > sizeof(payload))
		return 0;
	memcpy(payload, data + 1, size - 1);
	data = (const uint8_t *)payload;
	size--;

	if (qkind_show(k, data, size, &shown) == 0) {
		if (shown.n > shown.max)
			fail("more values than room", k, "");
		for (unsigned i = 0; i < shown.n; i++)
			if (!vals[i].key)
				fail("a value without a key", k, "");
	} else if (shown.n != 0) {
		fail("a failed show reported values", k, "");
	}

	if (k->class_rate) {
		uint64_t bps = 7;

		/* A class's rate: no crash, and a refusal leaves the output alone. */
		if (k->class_rate(data, size, &bps) < 0 && bps != 7)
			fail("a failed class rate wrote its output", k, "");
	}

	if (qkind_decode(k, data, size, wire, &n) < 0)
		return 0;
	spell_all(k, wire, n, first, sizeof(first));
	/* A dump's words may be refused (tc refuses "limit 0" where a kernel took it);
	 * what tc's encoding sent must come back to itself. */
	if (rebuild(k, first, once, sizeof(once)) < 0)
		return 0;
	if (rebuild(k, once, twice, sizeof(twice)) < 0)
		fail("words that came back from encoding are refused", k, once);
	if (strcmp(once, twice))
		fail("rebuilt words are not a fixed point", k, once);
	return 0;
}
