/* SPDX-License-Identifier: MIT */
/*
 * tls-fixture.h - PEM files for the TLS tests (test-tls.c, test-hclient.c), made once per
 * process in a fresh temporary directory with OpenSSL's API and removed at exit: a
 * self-signed EC P-256 certificate for "localhost" and 127.0.0.1, valid for a day, its
 * key, a second key that does not match it, and a file that looks like a PEM
 * certificate and is not one. Aborts when OpenSSL cannot make them (a broken test
 * machine, not a test result). Only in builds with TLS (DEBLOAT_HAVE_TLS).
 */
#ifndef DEBLOAT_TESTS_TLS_FIXTURE_H
#define DEBLOAT_TESTS_TLS_FIXTURE_H

struct tls_fixture {
	char dir[64];
	char cert[96], key[96], other_key[96], junk[96];
};

const struct tls_fixture *tls_fixture(void);

#endif
