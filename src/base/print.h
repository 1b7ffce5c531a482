/* SPDX-License-Identifier: MIT */
/*
 * print.h - one output path for text and JSON, in the spirit of iproute2's print_*.
 *
 * A caller emits each fact once, as (key, value, unit):
 *
 *	print_uint(p, "delay_us", 123040, UNIT_US);
 *
 * In JSON mode that adds "delay_us": 123040 to the current object (or appends the
 * number when the current container is an array and key is NULL); print_finish()
 * writes the whole document. In text mode it writes "delay 123 ms": the label is the
 * key without its unit suffix ("_us", "_bytes", ...), the value is formatted for a
 * person, and consecutive values on a line are separated by one space.
 *
 * Text layout is the caller's: print_text() and print_nl() write only in text mode,
 * print_indent() sets the indentation of the following text lines. Containers
 * (print_open_object/array) only shape the JSON document. Text fits PRINT_WIDTH
 * columns: a line that would pass it breaks between words, the rest indented two
 * columns more than the line's own indentation. A value printed with PRINT_NOWRAP (a
 * command to type) is never broken: it starts a line of its own when it does not fit.
 *
 * Flags, or-ed into the unit argument (or passed alone to print_str and friends):
 *	PRINT_BARE	text shows the value without its label
 *	PRINT_JSON_ONLY	nothing in text
 *	PRINT_NOWRAP	text keeps the value whole on one line
 *	PRINT_COMMAND	a command to paste: text breaks it between words where it does not
 *			fit, each broken line ending in a shell continuation (" \\")
 *
 * Errors (out of memory, a failed write, unbalanced containers) are sticky and
 * returned by print_finish(), as -errno.
 */
#ifndef DEBLOAT_PRINT_H
#define DEBLOAT_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "value.h"

#define PRINT_BARE	(1u << 8)
#define PRINT_JSON_ONLY (1u << 9)
#define PRINT_NOWRAP	(1u << 10)
#define PRINT_COMMAND	(1u << 11)
#define PRINT_WIDTH	80

enum print_mode {
	PRINT_MODE_TEXT,
	PRINT_MODE_JSON,
};

struct printer;

/* NULL when out of memory. */
struct printer *print_new(FILE *out, enum print_mode mode);
int print_finish(struct printer *p);
void print_free(struct printer *p);
bool print_is_json(const struct printer *p);
/* JSON mode: print_finish() writes the document on one line (JSON lines, one per sample). */
void print_set_compact(struct printer *p);
/* Text: break lines past width columns (PRINT_WIDTH by default; 0: never, for
 * machine-read lines and screens that place their own text). */
void print_set_width(struct printer *p, unsigned width);

void print_open_object(struct printer *p, const char *key);
void print_open_array(struct printer *p, const char *key);
void print_close(struct printer *p);

void print_uint(struct printer *p, const char *key, uint64_t v, unsigned unit_flags);
void print_int(struct printer *p, const char *key, int64_t v, unsigned unit_flags);
/* In text, control characters of s come out escaped (print_escape): s may come from the
 * network or a file. */
void print_str(struct printer *p, const char *key, const char *s, unsigned flags);
void print_bool(struct printer *p, const char *key, bool b, unsigned flags);
/* JSON null; text shows `text` ("unknown") in place of a value. */
void print_null(struct printer *p, const char *key, const char *text, unsigned flags);
/* s when it is set and not empty; else JSON null and nothing in text. */
void print_opt_str(struct printer *p, const char *key, const char *s, unsigned flags);
void print_value(struct printer *p, const struct value *v, unsigned flags);
/*
 * A measured quantity that is not an integer (a latency in ms, a rate in Mbit/s). JSON
 * gets the number as is, or null when v is NaN or infinite; text gets `decimals`
 * digits after the point and the unit's short name ("12.3 ms", "94.1 Mbit/s"), or
 * "n/a" when v is not finite.
 */
void print_double(struct printer *p, const char *key, double v, int decimals, unsigned unit_flags);

/*
 * Text from the network or a file made safe for a terminal: control characters (C0,
 * DEL) become \xHH, and a backslash \\, so nothing it holds can move the cursor,
 * clear the screen or hide itself. Truncated to len - 1 bytes; returns out.
 */
char *print_escape(char *out, size_t len, const char *s);

void print_text(struct printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void print_nl(struct printer *p);

/*
 * Summary lines, where facts read as parts of a sentence ("ran 10.0 s, command exit
 * status 0; BQL limit p50 3028 bytes") rather than as "label value". Each call gives one
 * fact once: JSON gets key and v as print_uint/print_int/print_double/print_bool would
 * (print_null_phrase: null); text gets the phrase, fmt with its arguments, appended to
 * the line exactly as written: no blank added, no label, no unit ("" for none). The
 * line is laid out (spaced after what came before it, wrapped past the width) as a
 * whole at the next print_nl(), as one print_text() of it would be; a line keeps
 * PRINT_PHRASE_MAX - 1 bytes. print_phrase: text only.
 */
#define PRINT_PHRASE_MAX 512
void print_phrase(struct printer *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void print_uint_phrase(struct printer *p, const char *key, uint64_t v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_int_phrase(struct printer *p, const char *key, int64_t v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_double_phrase(struct printer *p, const char *key, double v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_str_phrase(struct printer *p, const char *key, const char *s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_bool_phrase(struct printer *p, const char *key, bool b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_null_phrase(struct printer *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void print_indent(struct printer *p, unsigned level);

/*
 * Tables whose columns are JSON objects: `compare` shows a run per column in text and a
 * run per object of an array in JSON. The caller prints in the JSON's order, column
 * after column, inside its own containers. A cell call gives one fact once: JSON gets
 * key and value as print_str/print_double would; text puts the words (fmt with its
 * arguments) in the cell of column col on the row labelled row, after what that cell
 * holds already (a ratio after its value). Rows come in the order first named (by a
 * cell or by print_table_row, which names a row ahead of its cells); row NULL: JSON
 * only; print_cell: text only.
 *
 * Text is written by print_table_end(), never wrapped: each row its label padded to
 * label_w columns, then each cell after sep, padded to col_w columns (the last one
 * unpadded with trim_last), one line a row; a row no cell was put in is its label
 * alone (a heading). With fit, label_w and col_w are ignored: the labels and each
 * column take the width of their widest text, and the columns that would pass the
 * printer's width (print_set_width) go to further blocks below, each with the labels
 * and headings again after a blank line, so no line passes it while one column fits.
 * Text keeps PRINT_TABLE_COLS columns, PRINT_TABLE_ROWS rows and PRINT_TABLE_CELL - 1
 * bytes a cell or label; the rest is left out of the text only.
 */
#define PRINT_TABLE_COLS 16
#define PRINT_TABLE_ROWS 96
#define PRINT_TABLE_CELL 64

struct print_table_layout {
	unsigned label_w, col_w;
	const char *sep;
	bool trim_last;
	bool fit;
};

void print_table_begin(struct printer *p);
void print_table_row(struct printer *p, const char *row);
void print_cell(struct printer *p, size_t col, const char *row, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void print_str_cell(struct printer *p, const char *key, const char *s, size_t col, const char *row,
		    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void print_double_cell(struct printer *p, const char *key, double v, size_t col, const char *row,
		       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void print_table_end(struct printer *p, const struct print_table_layout *l);

/*
 * Text in another order than the JSON's. A document whose text tells its facts in an
 * order of its own (a summary line after a table, a warning at the end) still prints
 * each fact once, where the JSON has it, and sends the text to a section:
 * print_section(p, i) sends the text calls that follow (print_text, print_nl, phrases,
 * values, print_indent, a table's print_table_end) to section i, and
 * print_sections_end() lays the sections out one after another, 0 first, as if they
 * had been written in that order: a line may begin in one section and end in a later
 * one (a pending phrase line is closed into its section at the switch), and wraps as
 * one line. Text written unwrapped (a table, PRINT_NOWRAP) stays unwrapped. JSON: no
 * effect. Sections begin at the first print_section(); phrases in a section are kept
 * exactly as written, and where one section's text meets the next no blank is added.
 * Text sent to PRINT_SECTION_NONE is dropped (facts that this document's text leaves
 * out, in JSON only).
 */
#define PRINT_SECTIONS	   64
#define PRINT_SECTION_NONE PRINT_SECTIONS
void print_section(struct printer *p, unsigned i);
void print_sections_end(struct printer *p);

/* The text spelling of a value in a unit, as print_uint writes it. */
int print_format_unit(char *buf, size_t len, uint64_t v, enum unit unit);
/*
 * A size for people, decimal with three significant digits: "592 B", "4.89 MB",
 * "12.4 GB" (where UNIT_BYTES keeps tc's exact "4779Kb" spelling, for qdisc limits).
 */
void print_format_size(char *buf, size_t len, uint64_t bytes);
/* A rate for people, as iperf3 prints it: "950 Kbit/s", "14.7 Gbit/s". */
void print_format_rate(char *buf, size_t len, uint64_t bits_per_second);

#endif
