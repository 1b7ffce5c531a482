/* SPDX-License-Identifier: MIT */
/* tls-fixture.c - tls-fixture.h: the TLS tests' certificate and keys. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "http/tls.h"
#include "tls-fixture.h"

#if DEBLOAT_HAVE_TLS

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

static struct tls_fixture fx;

static EVP_PKEY *write_key(const char *path)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	FILE *f = fopen(path, "w");

	if (!k || !f || !PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL))
		abort();
	fclose(f);
	return k;
}

static void write_cert(EVP_PKEY *k)
{
	X509 *x = X509_new();
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	FILE *f;

	if (!x)
		abort();
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, k);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)"localhost", -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
	if (!ext || !X509_add_ext(x, ext, -1) || !X509_sign(x, k, EVP_sha256()))
		abort();
	X509_EXTENSION_free(ext);
	f = fopen(fx.cert, "w");
	if (!f || !PEM_write_X509(f, x))
		abort();
	fclose(f);
	X509_free(x);
}

static void remove_files(void)
{
	unlink(fx.cert);
	unlink(fx.key);
	unlink(fx.other_key);
	unlink(fx.junk);
	rmdir(fx.dir);
}

const struct tls_fixture *tls_fixture(void)
{
	EVP_PKEY *k;
	FILE *f;

	if (fx.dir[0])
		return &fx;
	snprintf(fx.dir, sizeof(fx.dir), "/tmp/debloat-tls-fixture.XXXXXX");
	if (!mkdtemp(fx.dir))
		abort();
	atexit(remove_files);
	snprintf(fx.cert, sizeof(fx.cert), "%s/cert.pem", fx.dir);
	snprintf(fx.key, sizeof(fx.key), "%s/key.pem", fx.dir);
	snprintf(fx.other_key, sizeof(fx.other_key), "%s/other.pem", fx.dir);
	snprintf(fx.junk, sizeof(fx.junk), "%s/junk.pem", fx.dir);
	k = write_key(fx.key);
	EVP_PKEY_free(write_key(fx.other_key));
	write_cert(k);
	EVP_PKEY_free(k);
	f = fopen(fx.junk, "w");
	if (!f)
		abort();
	fputs("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n",
	      f);
	fclose(f);
	return &fx;
}

#endif
