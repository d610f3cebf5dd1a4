/*
 * test_results.c - unit tests of the results model (results.h): totals
 * computed from a stats region, the merge of two results against the
 * results of the combined region, the JSON round trip (histograms
 * included), and that a read-back value renders the same text.
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json_report.h"
#include "loadfile.h"
#include "options.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "series.h"
#include "region.h"
#include "util.h"

/* series.c (linked in) reads the program's options */
struct options options = { .progname = "test" };

static const char loadfile_text[] =
	"NTCreateX \"\\clients\\client1\\f\" 0x40 0x2 1 NT_STATUS_OK\n"
	"WriteX 1 0 100 100 NT_STATUS_OK\n"
	"ReadX 1 0 100 100 NT_STATUS_OK\n"
	"Flush 1 NT_STATUS_OK\n"
	"Close 1 NT_STATUS_OK\n"
	"Unlink \"\\clients\\client1\\f\" NT_STATUS_OK\n";

#define NCLIENTS 4

static struct program *test_program(void)
{
	struct program *prog = program_compile("results.txt", loadfile_text, sizeof(loadfile_text) - 1,
					       stderr);

	assert_non_null(prog);
	return prog;
}

/* Fill client c's slot (the same whatever region it is in).  Latencies are
 * whole microseconds below 10 ms, so that every sum of squares is exact
 * and adds up in any order. */
static void fill_slot(struct slot *s, const struct program *prog, int c)
{
	uint64_t rng[2];

	rng_seed(rng, 42, (uint64_t)c + 1);
	for (unsigned k = 0; k < prog->nstats; k++) {
		for (unsigned n = 0; n < 50 + 10 * k + (unsigned)c; n++) {
			uint64_t lat = 1000 * (1 + rng_next(rng) % 9000);

			op_stats_add(&s->ops[k], lat, 100 * (k + 1));
			if (n % 7 == 0)
				s->ops[k].mismatches++;
			if (n % 5 == 0)
				s->ops[k].errors++;
		}
		s->ops_measured += s->ops[k].count;
		s->bytes_measured += s->ops[k].bytes;
		s->mismatches_all += s->ops[k].mismatches;
	}
	for (unsigned n = 0; n < 20; n++) {
		op_stats_add(&s->lag, 1000 * (n + (unsigned)c), 0);
		op_stats_add(&s->response, 1000 * (2 * n + (unsigned)c), 0);
	}
	s->passes = 3 + (uint64_t)c;
	s->mismatches_all += 11 + (uint64_t)c;	/* and some outside the window */
	s->ops_all = 1000 + (uint64_t)c;
	s->cpu_user_ns = 5000000 * ((uint64_t)c + 1);
	s->cpu_sys_ns = 700000 * ((uint64_t)c + 1);
	s->net_sent = 123456 * ((uint64_t)c + 1);
	s->net_received = 654321 * ((uint64_t)c + 1);
	s->state = c == 2 ? SLOT_FAILED : SLOT_DONE;
	if (c == 2)
		snprintf(s->error, sizeof(s->error), "lost the \"server\"\n: test %d", c);
}

/* A region of n clients holding clients first .. first + n - 1. */
static struct shared *region(const struct program *prog, int first, int n)
{
	struct shared *sh = shared_create(prog, n);

	for (int i = 0; i < n; i++)
		fill_slot(shared_slot(sh, i), prog, first + i);
	return sh;
}

/* A series of three seconds for clients first .. first + n - 1. */
static struct series *series_for(int first, int n)
{
	struct series *ser = xcalloc(1, sizeof(*ser));

	ser->nrows = 3;
	ser->rows = xcalloc(3, sizeof(*ser->rows));
	for (unsigned s = 0; s < 3; s++) {
		struct series_row *row = &ser->rows[s];

		row->second = s;
		row->phase = s == 0 ? PHASE_WARMUP : PHASE_EXECUTE;
		for (int c = first; c < first + n; c++) {
			row->clients++;
			row->ops += 100 + (uint64_t)c;
			row->bytes += 1000 * (uint64_t)c;
			row->max_ns = MAX(row->max_ns, 2000000 + 1000 * (uint64_t)c);
			row->p99_ns = MAX(row->p99_ns, 1000000 + 1000 * (uint64_t)c);
		}
	}
	return ser;
}

struct fixture {
	struct program *prog;
	struct options opt;
	struct run_result run;
	const char *argv[4];
};

static void fixture_init(struct fixture *f, int nclients, bool paced)
{
	memset(f, 0, sizeof(*f));
	f->prog = test_program();
	f->argv[0] = "dbench";
	f->argv[1] = "--json";
	f->argv[2] = "x \"y\"";
	f->opt = (struct options){
		.progname = "dbench", .nprocs = nclients, .clients_per_process = 1, .timelimit = 10,
		.warmup = 2, .backend = "null", .nclients = nclients, .argc = 3, .argv = f->argv,
		.seed = 18446744073709551615ULL, .per_client_results = 1,
		.target_rate = paced ? 2.5 : 0, .stdout_fd = -1,
	};
	f->run.release_ns = 1000000000;
	f->run.measure_start_ns = 3000000000;
	f->run.measure_end_ns = 13000000123;
	snprintf(f->run.start_time, sizeof(f->run.start_time), "2026-01-02T03:04:05Z");
}

static void compute(struct results *r, struct fixture *f, const struct shared *sh)
{
	struct pass_figures pass = { .ops = 6, .bytes_read = 100, .bytes_written = 100,
				     .duration_ns = 1234567891 };

	results_compute(r, &(struct results_source){ .prog = f->prog, .backend = "null",
		.opt = &f->opt, .sh = sh, .run = &f->run, .pass = &pass,
		.series = f->run.series ? f->run.series->rows : NULL,
		.nseries = f->run.series ? f->run.series->nrows : 0,
		.series_failed = series_failed(f->run.series) });
}

static char *dump(const struct results *r)
{
	json_t *doc = results_to_json(r);
	char *s = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(9));

	json_decref(doc);
	assert_non_null(s);
	return s;
}

static char *render(const struct results *r, unsigned flags)
{
	char *out = NULL, *err = NULL, *both;
	size_t outlen = 0, errlen = 0;
	FILE *o = open_memstream(&out, &outlen), *e = open_memstream(&err, &errlen);

	report_final(o, e, r, flags);
	fclose(o);
	fclose(e);
	both = xmalloc(outlen + errlen + 16);
	snprintf(both, outlen + errlen + 16, "%s--stderr--\n%s", out, err);
	free(out);
	free(err);
	return both;
}

static void assert_total_equal(const struct op_total *a, const struct op_total *b)
{
	assert_true(a->count == b->count);
	assert_true(a->mismatches == b->mismatches);
	assert_true(a->errors == b->errors);
	assert_true(a->bytes == b->bytes);
	assert_true(a->total_ns == b->total_ns);
	assert_true(a->min_ns == b->min_ns);
	assert_true(a->max_ns == b->max_ns);
	assert_true(a->sumsq_ns == b->sumsq_ns);
	assert_memory_equal(a->decade, b->decade, sizeof(a->decade));
	assert_memory_equal(&a->hist, &b->hist, sizeof(a->hist));
}

/* Each group is the sum of its ops, "all" the sum of every op, the
 * per-client figures are each client's slot, and the rest adds up. */
static void test_totals(void **state)
{
	struct fixture f;
	struct results r;
	struct shared *sh;
	uint64_t group_sum[GROUP_COUNT] = { 0 }, sum = 0, passes = 0;

	(void)state;
	fixture_init(&f, NCLIENTS, false);
	sh = region(f.prog, 0, NCLIENTS);
	compute(&r, &f, sh);
	assert_int_equal(r.nops, f.prog->nstats);
	for (unsigned k = 0; k < r.nops; k++) {
		group_sum[op_info[r.op[k].id].group] += r.op[k].total.count;
		sum += r.op[k].total.count;
		assert_true(r.op[k].total.hist.n == r.op[k].total.count);
		assert_true(r.per_client[1].op[k].count == shared_slot(sh, 1)->ops[k].count);
	}
	for (int g = 0; g < GROUP_COUNT; g++)
		assert_true(r.group[g].count == group_sum[g]);
	assert_true(r.all.count == sum);
	assert_true(r.all.hist.n == sum);
	assert_true(r.group[GROUP_WRITE].count ==
		    r.op[f.prog->statidx[OP_WRITEX]].total.count + r.op[f.prog->statidx[OP_FLUSH]].total.count);
	assert_true(r.group[GROUP_LOCKING].count == 0);
	for (int i = 0; i < NCLIENTS; i++)
		passes += r.passes[i];
	assert_true(passes == 3 + 4 + 5 + 6);
	assert_int_equal(r.nfailures, 1);
	assert_int_equal(r.failures[0].client, 2);
	assert_true(r.resources.ops == 4006);
	assert_true(r.id.window_ns == 10000000123ULL);
	assert_int_equal(r.exit_status, EXIT_RUN_FAILED);
	assert_false(r.id.paced);
	results_free(&r);
	shared_destroy(sh);
	program_free(f.prog);
}

/* Results of clients 0-1 merged with those of clients 2-3 are the results
 * of one region of clients 0-3: every figure, in the JSON document. */
static void test_merge_equals_combined(void **state)
{
	struct fixture fall, fa, fb;
	struct shared *all_sh, *a_sh, *b_sh;
	struct results all, a, b;
	char *want, *got, *want_text, *got_text;

	(void)state;
	fixture_init(&fall, 4, true);
	fixture_init(&fa, 2, true);
	fixture_init(&fb, 2, true);
	all_sh = region(fall.prog, 0, 4);
	a_sh = region(fa.prog, 0, 2);
	b_sh = region(fb.prog, 2, 2);
	fall.run.series = series_for(0, 4);
	fa.run.series = series_for(0, 2);
	fb.run.series = series_for(2, 2);
	compute(&all, &fall, all_sh);
	compute(&a, &fa, a_sh);
	compute(&b, &fb, b_sh);
	assert_int_equal(results_merge(&a, &b), 0);
	for (unsigned k = 0; k < all.nops; k++)
		assert_total_equal(&a.op[k].total, &all.op[k].total);
	assert_total_equal(&a.all, &all.all);
	assert_total_equal(&a.lag, &all.lag);
	assert_total_equal(&a.response, &all.response);
	want = dump(&all);
	got = dump(&a);
	assert_string_equal(got, want);
	want_text = render(&all, REPORT_PER_CLIENT | REPORT_LATENCY);
	got_text = render(&a, REPORT_PER_CLIENT | REPORT_LATENCY);
	assert_string_equal(got_text, want_text);
	assert_non_null(strstr(got_text, "  4 clients  4 procs  max_latency="));
	free(want);
	free(got);
	free(want_text);
	free(got_text);

	/* results of another loadfile are not merged */
	a.op[0].id = OP_RENAME;
	assert_int_equal(results_merge(&a, &b), -1);

	results_free(&all);
	results_free(&a);
	results_free(&b);
	series_free(fall.run.series);
	series_free(fa.run.series);
	series_free(fb.run.series);
	shared_destroy(all_sh);
	shared_destroy(a_sh);
	shared_destroy(b_sh);
	program_free(fall.prog);
	program_free(fa.prog);
	program_free(fb.prog);
}

/* Written, read back, written again: the same document and the same value,
 * histograms and every raw figure included; and the same text. */
static void round_trip(bool paced, bool per_client)
{
	static const unsigned flag_sets[] = {
		0, REPORT_MACHINE_READABLE, REPORT_PER_CLIENT | REPORT_LATENCY,
	};
	struct fixture f;
	struct results r, back;
	struct shared *sh;
	json_error_t jerr;
	json_t *doc;
	char *text, *again, err[256];

	fixture_init(&f, NCLIENTS, paced);
	f.opt.per_client_results = per_client;
	f.run.series = series_for(0, NCLIENTS);
	sh = region(f.prog, 0, NCLIENTS);
	compute(&r, &f, sh);
	text = dump(&r);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	assert_int_equal(results_from_json(&back, doc, err, sizeof(err)), 0);
	json_decref(doc);
	again = dump(&back);
	assert_string_equal(again, text);
	assert_int_equal(back.nops, r.nops);
	for (unsigned k = 0; k < r.nops; k++) {
		assert_int_equal(back.op[k].id, r.op[k].id);
		assert_total_equal(&back.op[k].total, &r.op[k].total);
	}
	for (int g = 0; g < GROUP_COUNT; g++)
		assert_total_equal(&back.group[g], &r.group[g]);
	assert_total_equal(&back.lag, &r.lag);
	assert_total_equal(&back.response, &r.response);
	assert_true(back.id.seed == r.id.seed);
	assert_true(back.id.window_ns == r.id.window_ns);
	assert_true(back.id.pass.duration_ns == r.id.pass.duration_ns);
	assert_string_equal(back.failures[0].reason, r.failures[0].reason);
	assert_memory_equal(&back.resources, &r.resources, sizeof(r.resources));
	assert_int_equal(back.nseries, r.nseries);
	assert_memory_equal(back.series, r.series, r.nseries * sizeof(*r.series));
	assert_int_equal(back.exit_status, r.exit_status);
	assert_int_equal(back.per_client != NULL, per_client);
	for (size_t i = 0; i < ARRAY_SIZE(flag_sets); i++) {
		char *want = render(&r, flag_sets[i]), *got = render(&back, flag_sets[i]);

		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	free(text);
	free(again);
	results_free(&r);
	results_free(&back);
	series_free(f.run.series);
	shared_destroy(sh);
	program_free(f.prog);
}

static void test_round_trip(void **state)
{
	(void)state;
	round_trip(false, true);
	round_trip(true, true);
	round_trip(false, false);
}

/* The text has the classic lines, in the classic places. */
static void test_render_classic(void **state)
{
	struct fixture f;
	struct results r;
	struct shared *sh;
	char *text, *last;

	(void)state;
	fixture_init(&f, NCLIENTS, false);
	sh = region(f.prog, 0, NCLIENTS);
	compute(&r, &f, sh);
	text = render(&r, 0);
	assert_non_null(strstr(text, "\n Operation      Count    AvgLat    MaxLat\n"));
	assert_non_null(strstr(text, "passes per client 3..6 (18 in all)\n"));
	last = strstr(text, "Throughput ");
	assert_non_null(last);
	assert_non_null(strstr(last, " MB/sec  4 clients  4 procs  max_latency="));
	assert_non_null(strstr(text, "--stderr--\ndbench: client 2 failed: lost the"));
	assert_non_null(strstr(text, "status mismatches in the measured window: NTCreateX "));
	free(text);
	text = render(&r, REPORT_MACHINE_READABLE);
	assert_non_null(strstr(text, ":NTCreateX:"));
	assert_non_null(strstr(text, ";4;4;"));
	assert_null(strstr(text, "Throughput"));
	free(text);
	results_free(&r);
	shared_destroy(sh);
	program_free(f.prog);
}

/* A document that is not a result: one line, no value. */
static void test_from_json_errors(void **state)
{
	struct results r;
	json_t *doc;
	char err[256];

	(void)state;
	doc = json_pack("{s:i}", "schema_version", 99);
	assert_int_equal(results_from_json(&r, doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "schema_version 99"));
	json_decref(doc);
	doc = json_array();
	assert_int_equal(results_from_json(&r, doc, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a JSON object"));
	json_decref(doc);
	assert_int_equal(results_read_json(&r, "/nonexistent/r.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/r.json"));
}

/* Every member and element of a small document, removed or replaced by a
 * value of another type, in turn: read back or refused with a reason, never
 * a crash.  31,000 documents read: in the suite's sanitizer pass
 * (DBENCH_SANITIZER_PASS, build.sh sanitize) that took 100 CPU-seconds, so
 * there a deterministic sample: every member of every object, but of an
 * array only the first and the last element (the middle ones are read by
 * the same loop: histogram buckets, decades, operations, clients).  The
 * first pass tries every one. */
static int mutations_tried, mutations_refused;
static bool mutations_sampled;

static void try_document(const json_t *doc)
{
	struct results r;
	char err[256] = "";

	mutations_tried++;
	if (results_from_json(&r, doc, err, sizeof(err)) < 0) {
		assert_true(err[0] != '\0');
		assert_null(strchr(err, '\n'));
		mutations_refused++;
		return;
	}
	json_decref(results_to_json(&r));
	results_free(&r);
}

static void mutate_all(json_t *root, json_t *node)
{
	json_t *replacements[] = { json_null(), json_string("x"), json_integer(-1), json_integer(1 << 30) };
	const char *key;
	json_t *value;
	size_t i;

	if (json_is_object(node)) {
		/* the keys first: a key set again goes to the end of the order */
		size_t n = json_object_size(node), j = 0;
		char **keys = xcalloc(n + 1, sizeof(*keys));

		json_object_foreach(node, key, value)
			keys[j++] = xstrdup(key);
		for (j = 0; j < n; j++) {
			json_t *saved = json_incref(json_object_get(node, keys[j]));

			json_object_del(node, keys[j]);
			try_document(root);
			for (size_t k = 0; k < ARRAY_SIZE(replacements); k++) {
				json_object_set(node, keys[j], replacements[k]);
				try_document(root);
			}
			json_object_set(node, keys[j], saved);
			mutate_all(root, saved);
			json_decref(saved);
			free(keys[j]);
		}
		free(keys);
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, value) {
			json_t *saved;

			if (mutations_sampled && i != 0 && i + 1 != json_array_size(node))
				continue;
			saved = json_incref(value);

			for (size_t k = 0; k < ARRAY_SIZE(replacements); k++) {
				json_array_set(node, i, replacements[k]);
				try_document(root);
			}
			json_array_set(node, i, saved);
			mutate_all(root, saved);
			json_decref(saved);
		}
		if (json_array_size(node)) {
			json_t *saved = json_incref(json_array_get(node, 0));

			json_array_remove(node, 0);
			try_document(root);
			json_array_insert(node, 0, saved);
			json_decref(saved);
		}
	}
	for (size_t k = 0; k < ARRAY_SIZE(replacements); k++)
		json_decref(replacements[k]);
}

static void test_from_json_mutations(void **state)
{
	struct fixture f;
	struct results r;
	struct shared *sh;
	json_t *doc;
	int refused;

	(void)state;
	mutations_sampled = getenv("DBENCH_SANITIZER_PASS") != NULL;
	fixture_init(&f, 1, true);
	f.run.series = series_for(0, 1);
	f.run.series->nrows = 1;
	sh = region(f.prog, 2, 1);	/* client 2 fails: a failures entry */
	for (unsigned k = 0; k < f.prog->nstats; k++) {	/* few buckets: a small document */
		struct op_stats *o = &shared_slot(sh, 0)->ops[k];

		op_stats_init(o);
		for (int n = 0; n < 3; n++)
			op_stats_add(o, 1000 * (k + 1), 100);
	}
	compute(&r, &f, sh);
	doc = results_to_json(&r);
	mutate_all(doc, doc);
	assert_true(mutations_tried > 1000);
	assert_true(mutations_refused > 500);	/* the derived figures are not read */
	refused = mutations_refused;
	try_document(doc);	/* put back as it was: reads */
	assert_int_equal(mutations_refused, refused);
	json_decref(doc);
	results_free(&r);
	series_free(f.run.series);
	shared_destroy(sh);
	program_free(f.prog);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_merge_equals_combined),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_render_classic),
		cmocka_unit_test(test_from_json_errors),
		cmocka_unit_test(test_from_json_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
